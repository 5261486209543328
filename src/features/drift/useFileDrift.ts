import { useQuery, useQueryClient } from "@tanstack/react-query";
import { startTransition, useEffect, useMemo, useState } from "react";
import { driftQueries, scanProgressStore } from "../../api/drift";
import { scanSubject } from "../../api/scans";
import { type RowDrift, summarizeFileDrift } from "../../core/drift/rowDrift";
import type { Trajectory } from "../../core/trajectory/types";
import type { ScanFile } from "../../workers/scanClients";
import { useDriftMode } from "./driftPrefsStore";
import { useDriftTokenizer } from "./useDriftTokenizer";

/** The table's drift column is refreshed at most this often while a scan streams rows in. */
const STREAM_EVERY_MS = 1000;

type ProgressStore = ReturnType<typeof scanProgressStore>;

/**
 * The rows a running scan has checked so far, for the table. Each refresh is a transition, which
 * React renders in slices between frames, so re-rendering the table never blocks the page (a
 * store read with useSyncExternalStore would render the whole page synchronously per message).
 */
function useStreamedRows(store: ProgressStore, isScanning: boolean) {
  const [rows, setRows] = useState<readonly (RowDrift | undefined)[] | undefined>(undefined);
  useEffect(() => {
    if (!isScanning) {
      setRows(undefined);
      return;
    }
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      timer = undefined;
      last = Date.now();
      const partial = store.getSnapshot()?.partial;
      startTransition(() => setRows(partial));
    };
    const unsubscribe = store.subscribe(() => {
      timer ??= setTimeout(refresh, Math.max(0, last + STREAM_EVERY_MS - Date.now()));
    });
    refresh();
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [store, isScanning]);
  return rows;
}

/**
 * The drift scan of an open file for the picked tokenizer and mode: started by `start()`, kept
 * as a query (keyed by file and its column mapping, tokenizer and mode) so it survives leaving and re-entering the table.
 * Unless one is picked, the tokenizer is the one chosen for `sample` (the file's first trajectory),
 * so the scan and each trajectory's views decode alike.
 */
export function useFileDrift(
  fileId: string,
  file: ScanFile | undefined,
  sample: { readonly trajectory: Trajectory | undefined; readonly isSettled: boolean },
) {
  const { tokenizer, chosen } = useDriftTokenizer(sample.trajectory);
  const mode = useDriftMode();
  const scanKey = `${tokenizer}\u0000${mode}`;
  const [startedKey, setStartedKey] = useState<string | undefined>(undefined);
  const queryClient = useQueryClient();
  const options = driftQueries.file(fileId, tokenizer ?? "", mode, file, chosen);
  const query = useQuery({
    ...options,
    enabled: tokenizer !== undefined && file !== undefined && startedKey === scanKey,
  });
  const subject = scanSubject(fileId, file);
  const store = useMemo(
    () => scanProgressStore(subject, tokenizer ?? "", mode),
    [subject, tokenizer, mode],
  );
  const isScanning = query.isFetching;
  // Rows stream in while the scan runs; the summary waits for the whole file.
  const streamed = useStreamedRows(store, isScanning);
  const rows = query.data?.rows ?? (isScanning ? streamed : undefined);
  const finished = query.data?.rows;
  const summary = useMemo(() => (finished ? summarizeFileDrift(finished) : undefined), [finished]);
  return {
    tokenizer,
    sample: sample.trajectory,
    mode,
    rows,
    summary,
    badLines: query.data?.badLines ?? 0,
    /** Why rows went unchecked, with how many (the CLI's `unchecked_trajectories` reasons). */
    uncheckedReasons: query.data?.unchecked ?? {},
    roundTrip: query.data?.roundTrip,
    /** Readies the scan's workers and tokenizer ahead of "Check drift" (see useReadyScanPool). */
    pool: driftQueries.pool(fileId, tokenizer ?? "", file),
    /** The running scan's progress: read by the progress bar alone, so only it renders per message. */
    progressStore: store,
    isScanning,
    error: query.error ? query.error.message : undefined,
    canStart: tokenizer !== undefined && file !== undefined && sample.isSettled,
    // A transition: the page's re-render on the click is sliced between frames, not one long task.
    start: () => startTransition(() => setStartedKey(scanKey)),
    /** Stops a running scan (every worker's range); the file can be checked again later. */
    cancel: () => {
      setStartedKey(undefined);
      void queryClient.cancelQueries({ queryKey: options.queryKey });
    },
  };
}

export type FileDriftState = ReturnType<typeof useFileDrift>;

/**
 * Starts the scan workers of the file and loads the tokenizer into each while the page is read
 * (where "Check drift" is offered and the check can run), so a click starts checking at once.
 */
export function useReadyScanPool(drift: FileDriftState, canCheck: boolean): void {
  useQuery({ ...drift.pool, enabled: canCheck && drift.canStart });
}

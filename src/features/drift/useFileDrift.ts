import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, useSyncExternalStore } from "react";
import { driftQueries, scanProgressStore } from "../../api/drift";
import { scanSubject } from "../../api/scans";
import { summarizeFileDrift } from "../../core/drift/rowDrift";
import type { Trajectory } from "../../core/trajectory/types";
import type { ScanFile } from "../../workers/scanClients";
import { useDriftMode } from "./driftPrefsStore";
import { useDriftTokenizer } from "./useDriftTokenizer";

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
  const progress = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const isScanning = query.isFetching;
  // Rows stream in while the scan runs; the summary waits for the whole file.
  const rows = query.data?.rows ?? (isScanning ? progress?.partial : undefined);
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
    progress,
    isScanning,
    error: query.error ? query.error.message : undefined,
    canStart: tokenizer !== undefined && file !== undefined && sample.isSettled,
    start: () => setStartedKey(scanKey),
    /** Stops a running scan (every worker's range); the file can be checked again later. */
    cancel: () => {
      setStartedKey(undefined);
      void queryClient.cancelQueries({ queryKey: options.queryKey });
    },
  };
}

export type FileDriftState = ReturnType<typeof useFileDrift>;

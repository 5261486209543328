import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, useSyncExternalStore } from "react";
import { mismatchProgressStore, mismatchQueries } from "../../api/mismatch";
import { scanSubject } from "../../api/scans";
import type { MismatchScanOptions } from "../../core/mismatch/fileMismatch";
import { correction } from "../../core/mismatch/mismatch";
import type { ScanFile } from "../../workers/scanClients";

/** What the file page compares until the picker says otherwise: each trajectory's default lanes, token-level truncation at C = 2. */
export const FILE_MISMATCH_OPTIONS: MismatchScanOptions = { correction: correction("token-trunc") };

/**
 * The mismatch scan of an open file: started by `start()`, kept as a query (keyed by file and
 * options) so it survives leaving and re-entering the table; cancellable, with progress.
 */
export function useFileMismatch(fileId: string, file: ScanFile | undefined) {
  const [isStarted, setStarted] = useState(false);
  // The lanes and correction of the scan shown (the picker's, applied by start()).
  const [scanOptions, setScanOptions] = useState<MismatchScanOptions>(FILE_MISMATCH_OPTIONS);
  const queryClient = useQueryClient();
  const options = mismatchQueries.file(fileId, scanOptions, file);
  const query = useQuery({ ...options, enabled: file !== undefined && isStarted });
  const subject = scanSubject(fileId, file);
  const store = useMemo(() => mismatchProgressStore(subject, scanOptions), [subject, scanOptions]);
  const progress = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const isScanning = query.isFetching;
  return {
    /** Per row (by row index) while the scan streams in, then the whole file's. */
    rows: query.data?.rows ?? (isScanning ? progress?.partial : undefined),
    result: query.data,
    progress,
    isScanning,
    error: query.error ? query.error.message : undefined,
    canStart: file !== undefined,
    /** The lanes and correction the scan uses (each one is its own query: switching back is free). */
    options: scanOptions,
    start: (next?: MismatchScanOptions) => {
      if (next) setScanOptions(next);
      setStarted(true);
    },
    /** Stops a running scan (every worker's range); the file can be checked again later. */
    cancel: () => {
      setStarted(false);
      void queryClient.cancelQueries({ queryKey: options.queryKey });
    },
  };
}

export type FileMismatchState = ReturnType<typeof useFileMismatch>;

import { queryOptions } from "@tanstack/react-query";
import type { MismatchScanOptions, RowMismatch } from "../core/mismatch/fileMismatch";
import { type ScanFile, scanPlan } from "../workers/scanClients";
import {
  type FileMismatch,
  type PoolScanProgress,
  scanMismatchWithPool,
} from "../workers/scanPool";
import { progressStores, scanSubject } from "./scans";

const mismatchProgress = progressStores<PoolScanProgress<RowMismatch>>();

function progressKey(subject: string, options: MismatchScanOptions): string {
  return JSON.stringify([subject, options]);
}

/** Subscribe/get pair (for useSyncExternalStore) of one file's mismatch scan progress. */
export function mismatchProgressStore(subject: string, options: MismatchScanOptions) {
  return mismatchProgress.store(progressKey(subject, options));
}

export const mismatchQueries = {
  all: () => ["mismatch"] as const,
  /** The mismatch of every trajectory of an open file and its charts, on the scan worker pool. */
  file: (fileId: string, options: MismatchScanOptions, file: ScanFile | undefined) => {
    const key = progressKey(scanSubject(fileId, file), options);
    return queryOptions({
      queryKey: [...mismatchQueries.all(), "file", key] as const,
      queryFn: async ({ signal }): Promise<FileMismatch> => {
        if (!file) throw new Error(`file ${fileId} is not open in this tab`);
        mismatchProgress.clear(key);
        const { ranges, clients } = await scanPlan(file);
        const job = { source: file.source, options, file: ranges };
        return scanMismatchWithPool(clients, job, (p) => mismatchProgress.report(key, p), signal);
      },
      staleTime: Number.POSITIVE_INFINITY,
      // A scan is costly: keep it while the tab lives, also when the table is not on screen.
      gcTime: Number.POSITIVE_INFINITY,
      retry: false,
    });
  },
};

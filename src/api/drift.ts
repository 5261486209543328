import { queryOptions } from "@tanstack/react-query";
import type { ChosenTokenizer, FileDriftScan } from "../core/drift/fileDriftScan";
import { DRIFT_MODES, type DriftMode } from "../core/drift/types";
import type { Trajectory } from "../core/trajectory/types";
import { readyScanPool, type ScanFile, scanClient, scanPlan } from "../workers/scanClients";
import { type PoolScanProgress, scanDriftWithPool } from "../workers/scanPool";
import { progressStores, scanSubject } from "./scans";
import { hashIds } from "./tokenizers";

async function scanFile(
  file: ScanFile,
  tokenizer: string,
  chosen: ChosenTokenizer | undefined,
  mode: DriftMode,
  report: (progress: PoolScanProgress) => void,
  signal: AbortSignal,
): Promise<FileDriftScan> {
  const { ranges, clients } = await scanPlan(file);
  const job = { tokenizer, ...(chosen ? { chosen } : {}), source: file.source, mode, file: ranges };
  return scanDriftWithPool(clients, job, report, signal);
}

const driftProgress = progressStores<PoolScanProgress>();

function progressKey(subject: string, tokenizer: string, mode: DriftMode): string {
  return JSON.stringify([subject, tokenizer, mode]);
}

/** Subscribe/get pair (for useSyncExternalStore) of one file scan's progress. */
export function scanProgressStore(subject: string, tokenizer: string, mode: DriftMode) {
  return driftProgress.store(progressKey(subject, tokenizer, mode));
}

export const driftQueries = {
  all: () => ["drift"] as const,
  /** Every check the record allows, with pieces; keyed by tokenizer and the record's content. */
  trajectory: (tokenizer: string, trajectory: Trajectory) => {
    const ids = trajectory.segments.flatMap((s) => s.tokenIds);
    return queryOptions({
      queryKey: [
        ...driftQueries.all(),
        "trajectory",
        tokenizer,
        trajectory.id,
        ids.length,
        hashIds(ids),
      ] as const,
      queryFn: () => scanClient().check(tokenizer, trajectory, DRIFT_MODES),
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    });
  },
  /**
   * The scan pool of an open file readied for `tokenizer`: its workers started, the tokenizer loaded
   * into each. A scan started later skips that wait; one started earlier shares the loads.
   */
  pool: (fileId: string, tokenizer: string, file: ScanFile | undefined) =>
    queryOptions({
      queryKey: [...driftQueries.all(), "pool", scanSubject(fileId, file), tokenizer] as const,
      queryFn: () => {
        if (!file) throw new Error(`file ${fileId} is not open in this tab`);
        return readyScanPool(file, tokenizer);
      },
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    }),
  /**
   * One mode over every trajectory of an open file, on a pool of drift workers. `chosen` is set
   * when the tokenizer was chosen for the file rather than picked (a record naming another one is
   * then unchecked, as in the CLI).
   */
  file: (
    fileId: string,
    tokenizer: string,
    mode: DriftMode,
    file: ScanFile | undefined,
    chosen?: ChosenTokenizer,
  ) => {
    const subject = scanSubject(fileId, file);
    const key = progressKey(subject, tokenizer, mode);
    const report = (p: PoolScanProgress) => driftProgress.report(key, p);
    return queryOptions({
      queryKey: [...driftQueries.all(), "file", subject, tokenizer, mode, chosen ?? null] as const,
      queryFn: ({ signal }) => {
        if (!file) throw new Error(`file ${fileId} is not open in this tab`);
        driftProgress.clear(key);
        return scanFile(file, tokenizer, chosen, mode, report, signal);
      },
      staleTime: Number.POSITIVE_INFINITY,
      // A scan is costly: keep it while the tab lives, also when the table is not on screen.
      gcTime: Number.POSITIVE_INFINITY,
      retry: false,
    });
  },
};

import { queryOptions } from "@tanstack/react-query";
import type { ChosenTokenizer, FileDriftScan } from "../core/drift/fileDriftScan";
import { DRIFT_MODES, type DriftMode } from "../core/drift/types";
import type { Trajectory } from "../core/trajectory/types";
import { createDriftClient, type DriftClient } from "../workers/driftClient";
import {
  type PoolScanProgress,
  scanRangeBytes,
  scanWithPool,
  scanWorkerCount,
} from "../workers/driftScanPool";
import type { FileRanges, RolloutFileSource } from "../workers/rolloutFileProtocol";
import { hashIds } from "./tokenizers";

let client: DriftClient | undefined;

/** The one long-lived drift worker (its own tokenizer copy, loaded once), started on first use. */
function driftClient(): DriftClient {
  client ??= createDriftClient();
  return client;
}

/**
 * Drift workers for file scans (drift and mismatch): the long-lived one first, more started on
 * first need and kept.
 */
const scanPool: DriftClient[] = [];
export function scanClients(count: number): DriftClient[] {
  if (typeof Worker === "undefined") return [driftClient()];
  if (scanPool.length === 0) scanPool.push(driftClient());
  while (scanPool.length < count) scanPool.push(createDriftClient());
  return scanPool.slice(0, count);
}

/** What a file scan needs of an open file (its RolloutFileClient). */
export interface DriftScanFile {
  readonly source: RolloutFileSource;
  caughtUp(): Promise<void>;
  getState(): { readonly bytes: number };
  ranges(targetBytes: number): Promise<FileRanges>;
}

/**
 * Every core's worker on one file: the file caught up, its ranges from the file's index, and the
 * clients to share them among.
 */
export async function scanPlan(file: DriftScanFile) {
  await file.caughtUp();
  const cores = typeof navigator === "undefined" ? 1 : navigator.hardwareConcurrency;
  const workers = scanWorkerCount(cores, file.getState().bytes);
  const ranges = await file.ranges(scanRangeBytes(file.getState().bytes, workers));
  return { ranges, clients: scanClients(workers) };
}

async function scanFile(
  file: DriftScanFile,
  tokenizer: string,
  chosen: ChosenTokenizer | undefined,
  mode: DriftMode,
  report: (progress: PoolScanProgress) => void,
  signal: AbortSignal,
): Promise<FileDriftScan> {
  const { ranges, clients } = await scanPlan(file);
  const job = { tokenizer, ...(chosen ? { chosen } : {}), source: file.source, mode, file: ranges };
  return scanWithPool(clients, job, report, signal);
}

/**
 * Scan progress is not query data (the query resolves once, at the end): the query function
 * reports it to one of these, with the rows checked so far, and the view subscribes by key.
 */
export function progressStores<P>() {
  const progress = new Map<string, P>();
  const listeners = new Set<() => void>();
  return {
    report(key: string, p: P) {
      progress.set(key, p);
      for (const listener of listeners) listener();
    },
    clear: (key: string) => progress.delete(key),
    /** Subscribe/get pair (for useSyncExternalStore) of one scan's progress. */
    store: (key: string) => ({
      subscribe: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      getSnapshot: () => progress.get(key),
    }),
  };
}

const driftProgress = progressStores<PoolScanProgress>();

/**
 * What a file scan is of: the open file, and the column mapping its records are read through (a
 * table re-read through another mapping is another scan, never the old one's results).
 */
export function scanSubject(fileId: string, file: DriftScanFile | undefined): string {
  const mapping = file?.source.mapping;
  return mapping ? JSON.stringify([fileId, mapping]) : fileId;
}

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
      queryFn: () => driftClient().check(tokenizer, trajectory, DRIFT_MODES),
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    });
  },
  /**
   * One mode over every trajectory of an open file, on a pool of drift workers. `chosen` is set
   * when the tokenizer was chosen for the file rather than picked (a record naming another one is
   * then unchecked, as in the CLI).
   */
  file: (
    fileId: string,
    tokenizer: string,
    mode: DriftMode,
    file: DriftScanFile | undefined,
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

import { queryOptions } from "@tanstack/react-query";
import { DRIFT_MODES, type DriftMode } from "../core/drift/types";
import type { Trajectory } from "../core/trajectory/types";
import { createDriftClient, type DriftClient } from "../workers/driftClient";
import type { ScanProgress } from "../workers/driftProtocol";
import type { RolloutFileSource } from "../workers/rolloutFileProtocol";
import { hashIds } from "./tokenizers";

let client: DriftClient | undefined;

/** The one long-lived drift worker (its own tokenizer copy, loaded once), started on first use. */
function driftClient(): DriftClient {
  client ??= createDriftClient();
  return client;
}

// Scan progress is not query data (the query resolves once, at the end): the query function
// reports it here and the view subscribes by the same key.
const progress = new Map<string, ScanProgress>();
const listeners = new Set<() => void>();

function progressKey(fileId: string, tokenizer: string, mode: DriftMode): string {
  return JSON.stringify([fileId, tokenizer, mode]);
}

/** Subscribe/get pair (for useSyncExternalStore) of one file scan's progress. */
export function scanProgressStore(fileId: string, tokenizer: string, mode: DriftMode) {
  const key = progressKey(fileId, tokenizer, mode);
  return {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => progress.get(key),
  };
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
  /** One mode over every trajectory of an open file, in the drift worker. */
  file: (
    fileId: string,
    tokenizer: string,
    mode: DriftMode,
    source: RolloutFileSource | undefined,
  ) => {
    const key = progressKey(fileId, tokenizer, mode);
    const report = (p: ScanProgress) => {
      progress.set(key, p);
      for (const listener of listeners) listener();
    };
    return queryOptions({
      queryKey: [...driftQueries.all(), "file", fileId, tokenizer, mode] as const,
      queryFn: ({ signal }) => {
        if (!source) throw new Error(`file ${fileId} is not open in this tab`);
        return driftClient().scan(tokenizer, source, mode, report, signal);
      },
      staleTime: Number.POSITIVE_INFINITY,
      // A scan is costly: keep it while the tab lives, also when the table is not on screen.
      gcTime: Number.POSITIVE_INFINITY,
      retry: false,
    });
  },
};

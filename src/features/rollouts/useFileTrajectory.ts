import { queryOptions, useQuery } from "@tanstack/react-query";
import type { Trajectory } from "../../core/trajectory/types";
import type { RolloutFileClient } from "../../workers/rolloutFileClient";

/**
 * Row `rowIndex` of an open file, parsed from its line in the file's worker, asked for as soon as
 * the index reaches it. One key for every page (trajectory, compare, the file's tokenizer sample)
 * and for a deep link's start (prefetchFileRow.ts): a line is parsed once. `onRead` sees the row
 * the moment the worker answers, before React renders it (the trajectory page starts decoding its
 * ids there).
 */
export function fileRowQuery(
  fileId: string,
  client: RolloutFileClient | undefined,
  rowIndex: number,
  onRead?: (trajectory: Trajectory) => void,
) {
  return queryOptions({
    queryKey: ["rollout-file", fileId, rowIndex] as const,
    queryFn: async () => {
      if (!client) throw new Error("file is not open");
      const trajectory = await client.readWhenIndexed(rowIndex);
      onRead?.(trajectory);
      return trajectory;
    },
    // A line's bytes do not change (files are append-only), so its parse never goes stale.
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** `fileRowQuery` of an open file, once `isEnabled`. */
export function useFileTrajectory(
  fileId: string,
  client: RolloutFileClient | undefined,
  rowIndex: number,
  isEnabled: boolean,
  onRead?: (trajectory: Trajectory) => void,
) {
  return useQuery({
    ...fileRowQuery(fileId, client, rowIndex, onRead),
    enabled: client !== undefined && isEnabled,
  });
}

/**
 * The file's first trajectory, which the file-wide tokenizer choice is made from; `isSettled` once
 * it is read (or failed, or the file has no rows yet), so a scan never starts on a guess.
 */
export function useFileSample(
  fileId: string,
  client: RolloutFileClient | undefined,
  rowCount: number,
) {
  const sample = useFileTrajectory(fileId, client, 0, rowCount > 0);
  return { trajectory: sample.data, isSettled: rowCount === 0 || !sample.isPending };
}

import { useQuery } from "@tanstack/react-query";
import type { RolloutFileClient } from "../../workers/rolloutFileClient";

/**
 * Row `rowIndex` of an open file, parsed from its line on demand in the file's worker. One key for
 * every page (trajectory, compare, the file's tokenizer sample): a line is parsed once.
 */
export function useFileTrajectory(
  fileId: string,
  client: RolloutFileClient | undefined,
  rowIndex: number,
  isEnabled: boolean,
) {
  return useQuery({
    queryKey: ["rollout-file", fileId, rowIndex],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.read(rowIndex);
    },
    enabled: client !== undefined && isEnabled,
    // A line's bytes do not change (files are append-only), so its parse never goes stale.
    staleTime: Number.POSITIVE_INFINITY,
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

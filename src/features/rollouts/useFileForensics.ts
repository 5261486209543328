import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { type Finding, rowsWithFinding } from "../../core/forest/fileFindings";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";
import type { GroupForensics } from "../../workers/rolloutFileProtocol";

/**
 * Every group's forensics (docs/forest.md), computed in the file's worker once the file was read
 * to its end, and again when a tailed file grows.
 */
export function useFileForensics(
  fileId: string,
  client: RolloutFileClient | undefined,
  state: RolloutFileState | undefined,
) {
  const rows = state?.rows.length ?? 0;
  const hasGroups = state?.rows.some((r) => r.group !== undefined) ?? false;
  return useQuery({
    queryKey: ["rollout-file", fileId, "forensics", rows],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.forensics();
    },
    enabled: client !== undefined && state?.caughtUp === true && hasGroups,
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: (previous) => previous,
  });
}

/** `order` kept to members of groups with `finding` (all of it when no finding is asked for). */
export function useFindingFilter(
  order: number[],
  forensics: readonly GroupForensics[] | undefined,
  finding: Finding | undefined,
): number[] {
  return useMemo(() => {
    if (finding === undefined) return order;
    // Until the forensics are in, no row is known to match: none is shown rather than all.
    if (!forensics) return [];
    const keep = rowsWithFinding(forensics, finding);
    return order.filter((i) => keep.has(i));
  }, [order, forensics, finding]);
}

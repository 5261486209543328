import type { QueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { tokenizerQueries } from "../../api/tokenizers";
import type { Trajectory } from "../../core/trajectory/types";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import { driftTokenizerFor, useDriftTokenizer } from "./useDriftTokenizer";

/** The ids the view shows, in token-index order. */
const idsOf = (trajectory: Trajectory) => trajectory.segments.flatMap((s) => s.tokenIds);

/**
 * Display pieces of a recorded trajectory's ids, decoded with the tokenizer chosen for it (see
 * useDriftTokenizer): undefined (the view shows `#id`) until they arrive or when decoding fails.
 */
export function useRecordedPieces(trajectory: Trajectory | undefined) {
  const { tokenizer, error } = useDriftTokenizer(trajectory);
  const tokenIds = useMemo(() => (trajectory ? idsOf(trajectory) : []), [trajectory]);
  const decoded = useTokenPieces(trajectory ? tokenizer : undefined, tokenIds);
  // The choice itself waits for the server's catalog: loading too, unless that failed.
  const isChoosing = trajectory !== undefined && tokenizer === undefined && error === undefined;
  return { ...decoded, isLoading: decoded.isLoading || isChoosing };
}

/**
 * Starts what `useRecordedPieces(trajectory)` will ask for (the tokenizer's load and the pieces,
 * under the same query key) now: a page that has just read a row calls it before rendering, so the
 * tokenizer's download overlaps React's first render of the row. Failures are left to the hook.
 */
export async function prefetchRecordedPieces(
  queryClient: QueryClient,
  trajectory: Trajectory,
): Promise<void> {
  const ids = idsOf(trajectory);
  if (ids.length === 0) return;
  const name = await driftTokenizerFor(queryClient, trajectory);
  if (name !== undefined) await queryClient.prefetchQuery(tokenizerQueries.pieces(name, ids));
}

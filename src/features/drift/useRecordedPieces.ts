import { useMemo } from "react";
import type { Trajectory } from "../../core/trajectory/types";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import { useDriftTokenizer } from "./useDriftTokenizer";

/**
 * Display pieces of a recorded trajectory's ids, decoded with the tokenizer chosen for it (see
 * useDriftTokenizer): undefined (the view shows `#id`) until they arrive or when decoding fails.
 */
export function useRecordedPieces(trajectory: Trajectory | undefined) {
  const { tokenizer, error } = useDriftTokenizer(trajectory);
  const tokenIds = useMemo(
    () => trajectory?.segments.flatMap((s) => s.tokenIds) ?? [],
    [trajectory],
  );
  const decoded = useTokenPieces(trajectory ? tokenizer : undefined, tokenIds);
  // The choice itself waits for the server's catalog: loading too, unless that failed.
  const isChoosing = trajectory !== undefined && tokenizer === undefined && error === undefined;
  return { ...decoded, isLoading: decoded.isLoading || isChoosing };
}

import { useMemo } from "react";
import type { Trajectory } from "../../core/trajectory/types";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import { useDriftTokenizer } from "./useDriftTokenizer";

/**
 * Display pieces of a recorded trajectory's ids, decoded with the tokenizer chosen for it (see
 * useDriftTokenizer): undefined (the view shows `#id`) until they arrive or when decoding fails.
 */
export function useRecordedPieces(trajectory: Trajectory | undefined) {
  const { tokenizer } = useDriftTokenizer(trajectory);
  const tokenIds = useMemo(
    () => trajectory?.segments.flatMap((s) => s.tokenIds) ?? [],
    [trajectory],
  );
  return useTokenPieces(trajectory ? tokenizer : undefined, tokenIds);
}

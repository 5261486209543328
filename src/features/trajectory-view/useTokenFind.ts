import { useCallback } from "react";
import {
  findLowConfidence,
  findMismatchAbove,
  findText,
  findTokenId,
} from "../../core/layout/tokenSearch";
import type { FindMode } from "./Toolbar";
import type { TrajectoryModel } from "./useTrajectoryModel";

/**
 * The toolbar's searches, each from the token after the selection (wrapping): text or token id,
 * the next trained token below a logprob threshold, and (mismatch mode) the next token whose |δ|
 * between the two compared lanes is above a threshold (`delta`: NaN where not compared). A hit is selected and scrolled to; each
 * handler says whether there was one.
 */
export function useTokenFind(
  model: TrajectoryModel,
  selected: number | undefined,
  select: (token: number, shouldScroll: boolean) => void,
  delta?: Float64Array,
) {
  const { flat } = model;
  const handleFind = useCallback(
    (query: string, mode: FindMode) => {
      const trimmed = query.trim();
      const found =
        mode === "id"
          ? /^\d+$/.test(trimmed)
            ? findTokenId(flat.tokenIds, Number(trimmed), selected)
            : undefined
          : findText(model.getTextIndex(), query, selected);
      if (found !== undefined) select(found, true);
      return found !== undefined;
    },
    [flat, model, selected, select],
  );
  const handleNextLow = useCallback(
    (threshold: number) => {
      const found = findLowConfidence(flat.logprobs, flat.lossMask, threshold, selected);
      if (found !== undefined) select(found, true);
      return found !== undefined;
    },
    [flat, selected, select],
  );
  const handleNextMismatch = useCallback(
    (threshold: number) => {
      const found = delta ? findMismatchAbove(delta, threshold, selected) : undefined;
      if (found !== undefined) select(found, true);
      return found !== undefined;
    },
    [delta, selected, select],
  );
  return { handleFind, handleNextLow, handleNextMismatch };
}

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { tokenizerQueries } from "../../api/tokenizers";
import { topLogprobIds } from "../../core/trajectory/topLogprobIds";
import type { Trajectory } from "../../core/trajectory/types";

/**
 * The piece of every top-k alternative id of the trajectory, decoded on its own by `tokenizer` in
 * one worker request (not one per id); undefined until it arrives or without a tokenizer.
 */
export function useAlternativePieces(
  tokenizer: string | undefined,
  trajectory: Trajectory,
): ReadonlyMap<number, string> | undefined {
  const ids = useMemo(() => topLogprobIds(trajectory), [trajectory]);
  const { data } = useQuery({
    ...tokenizerQueries.idPieces(tokenizer ?? "", ids),
    enabled: tokenizer !== undefined && ids.length > 0,
    // A live episode's set grows: the pieces known so far stay shown meanwhile.
    placeholderData: keepPreviousData,
  });
  return data;
}

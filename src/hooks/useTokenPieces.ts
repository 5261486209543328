import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { tokenizerQueries, warmTokenizerWorker } from "../api/tokenizers";
import { fitPieces } from "../core/layout/fitPieces";
import { useControlTokens } from "./useControlTokens";

/**
 * Byte-correct display pieces (and the tokenizer's control-token ids) for `tokenIds` from the tokenizer worker; undefined until the
 * tokenizer has loaded (the view shows `#id` placeholders meanwhile). While a growing sequence is
 * re-pieced, the known prefix keeps its pieces and only the new tokens wait.
 */
export function useTokenPieces(tokenizer: string | undefined, tokenIds: readonly number[]) {
  // The worker starts while the page still reads its trajectory and picks the tokenizer.
  useEffect(warmTokenizerWorker, []);
  const query = useQuery({
    ...tokenizerQueries.pieces(tokenizer ?? "", tokenIds),
    enabled: tokenizer !== undefined && tokenIds.length > 0,
    placeholderData: keepPreviousData,
  });
  const { data, isPlaceholderData, error } = query;
  const pieces = useMemo(() => {
    if (!data) return undefined;
    if (!isPlaceholderData && data.pieces.length === tokenIds.length) return data.pieces;
    return fitPieces(tokenIds, data.tokenIds, data.pieces);
  }, [data, isPlaceholderData, tokenIds]);
  // The same tokenizer's added/special ids: the chips of these pieces.
  const controlTokens = useControlTokens(tokenizer);
  // Asked and not answered yet: the view says "loading tokenizer" instead of showing raw ids.
  const isLoading = query.isPending && tokenizer !== undefined && tokenIds.length > 0;
  return { pieces, controlTokens, error: error ? error.message : undefined, tokenizer, isLoading };
}

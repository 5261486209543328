import { useQuery } from "@tanstack/react-query";
import { tokenizerQueries } from "../api/tokenizers";

/**
 * Loads tokenizer `name` into the tokenizer worker in the background (starting the worker), so a
 * trajectory opened next decodes at once instead of waiting for the worker and the tokenizer's
 * download. A failure is left to the view that needs the tokenizer, which asks again and says why.
 */
export function useTokenizerPreload(name: string | undefined): void {
  useQuery({ ...tokenizerQueries.load(name ?? ""), enabled: name !== undefined });
}

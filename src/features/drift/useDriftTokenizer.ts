import { useQuery } from "@tanstack/react-query";
import { tokenizerQueries } from "../../api/tokenizers";
import { useDriftTokenizerPick } from "./driftPrefsStore";

/** The tokenizer the drift views use (picked, else the server's default) and the catalog. */
export function useDriftTokenizer() {
  const picked = useDriftTokenizerPick();
  const catalog = useQuery(tokenizerQueries.catalog());
  const names = catalog.data?.tokenizers.map((t) => t.name) ?? [];
  return {
    tokenizer: picked ?? catalog.data?.default,
    names,
    error: catalog.error ? catalog.error.message : undefined,
  };
}

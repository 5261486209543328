import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { tokenizerQueries } from "../../api/tokenizers";
import { chooseTokenizerFor, type TokenizerChoice } from "../../core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../core/trajectory/types";
import { useDriftTokenizerPick } from "./driftPrefsStore";

/**
 * The tokenizer that decodes and retokenizes `trajectory`'s ids (the user's pick, else what its
 * record or its ids say, else the server's default; undefined until the catalog has loaded), why
 * it was chosen, and the catalog.
 */
export function useDriftTokenizer(trajectory?: Trajectory) {
  const picked = useDriftTokenizerPick();
  const catalog = useQuery(tokenizerQueries.catalog());
  const data = catalog.data;
  const names = useMemo(() => data?.tokenizers.map((t) => t.name) ?? [], [data]);
  const choice = useMemo((): TokenizerChoice | undefined => {
    if (picked === undefined && data === undefined) return undefined;
    return chooseTokenizerFor(trajectory, { picked, names, fallback: data?.default ?? "" });
  }, [picked, data, names, trajectory]);
  // Chosen for the file rather than picked: the scan leaves unchecked a record naming another one.
  const chosen = useMemo(
    () =>
      choice && choice.reason !== "picked"
        ? { name: choice.name, names, fallback: data?.default ?? "" }
        : undefined,
    [choice, names, data],
  );
  return {
    tokenizer: choice?.name,
    reason: choice?.reason,
    chosen,
    names,
    error: catalog.error ? catalog.error.message : undefined,
  };
}

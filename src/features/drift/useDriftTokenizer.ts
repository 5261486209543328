import { type QueryClient, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { type TokenizerCatalog, tokenizerQueries } from "../../api/tokenizers";
import { chosenForFile } from "../../core/drift/driftInputs";
import { chooseTokenizerFor, type TokenizerChoice } from "../../core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../core/trajectory/types";
import { driftPrefsActions, useDriftTokenizerPick } from "./driftPrefsStore";

/** The choice `useDriftTokenizer` makes: undefined until there is a pick or a catalog. */
function driftTokenizerChoice(
  trajectory: Trajectory | undefined,
  picked: string | undefined,
  catalog: TokenizerCatalog | undefined,
): TokenizerChoice | undefined {
  if (picked === undefined && catalog === undefined) return undefined;
  const names = catalog?.tokenizers.map((t) => t.name) ?? [];
  return chooseTokenizerFor(trajectory, { picked, names, fallback: catalog?.default ?? "" });
}

/**
 * The tokenizer `useDriftTokenizer` will choose for `trajectory`, outside React: a page that has
 * just read a row starts decoding with it before rendering. Undefined when the catalog fails.
 */
export async function driftTokenizerFor(
  queryClient: QueryClient,
  trajectory: Trajectory,
): Promise<string | undefined> {
  const picked = driftPrefsActions.picked();
  const catalog = await queryClient
    .ensureQueryData(tokenizerQueries.catalog())
    .catch(() => undefined);
  return driftTokenizerChoice(trajectory, picked, catalog)?.name;
}

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
  const choice = useMemo(
    () => driftTokenizerChoice(trajectory, picked, data),
    [picked, data, trajectory],
  );
  // Chosen for the file rather than picked: the scan leaves unchecked a record naming another one.
  const chosen = useMemo(
    () => (choice ? chosenForFile(choice, names, data?.default ?? "") : undefined),
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

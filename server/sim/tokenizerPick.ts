import { chooseTokenizer } from "../../src/core/tokenizer/chooseTokenizer";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import {
  BUNDLED_TOKENIZERS,
  installedOptionalTokenizers,
  loadTokenizer,
} from "../tokenizers/loadTokenizer";

/**
 * Which tokenizer (and so which family's dialect) serves one /generate request. Forced (`--tokenizer`
 * given): always that one. Otherwise the family of the request's first ids, chosen as the core's
 * `chooseTokenizer` chooses for a recorded trajectory, among the installed families; a tokenizer is
 * loaded the first time a request needs it (start-up loads only the default).
 */
export type TokenizerPicker = (promptIds: readonly number[]) => Promise<Tokenizer>;

/**
 * Llama 3 and 3.1 share their ids; 3.1's template alone writes the `ipython` tool environment,
 * in the system turn that opens a prompt with tools (read from its first ids).
 */
const LLAMA31_MARKER = "ipython";
const LLAMA31_WINDOW = 32;

export function createTokenizerPicker(options: {
  /** The forced or default tokenizer, already loaded. */
  readonly tokenizer: Tokenizer;
  readonly tokenizerName: string;
  readonly isForced: boolean;
}): TokenizerPicker {
  const { tokenizer, tokenizerName, isForced } = options;
  if (isForced) return async () => tokenizer;
  let names: readonly string[] | undefined;
  const load = (name: string) =>
    name === tokenizerName ? Promise.resolve(tokenizer) : loadTokenizer(name);
  return async (promptIds) => {
    names ??= [...Object.keys(BUNDLED_TOKENIZERS), ...installedOptionalTokenizers()];
    const choice = chooseTokenizer({
      picked: undefined,
      recorded: [],
      firstIds: promptIds,
      names,
      fallback: tokenizerName,
    });
    const chosen = await load(choice.name);
    if (chosen.family !== "llama3" && chosen.family !== "llama3_1") return chosen;
    const opening = chosen.decode(promptIds.slice(0, LLAMA31_WINDOW));
    const wanted = opening.includes(LLAMA31_MARKER) ? "llama3_1" : "llama3";
    if (chosen.family === wanted || !names.includes(wanted)) return chosen;
    return load(wanted);
  };
}

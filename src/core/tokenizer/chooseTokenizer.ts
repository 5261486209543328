/**
 * Which of the server's tokenizers turns a recorded trajectory's ids into text. Rollout files from
 * slime, atropos or strands rarely name their tokenizer, and ids decoded with the wrong vocabulary
 * read as plausible nonsense; so the choice, and why it was made, is always shown beside the view.
 */

/** How the tokenizer was chosen: named by the user, by the record, recognised from the ids, or the server's default. */
export type TokenizerReason = "picked" | "recorded" | "ids" | "default";

export interface TokenizerChoice {
  readonly name: string;
  readonly reason: TokenizerReason;
}

/**
 * Ids that only one family's chat template starts a sequence with: Llama-3's
 * `<|begin_of_text|>` / `<|start_header_id|>`, Qwen's `<|im_start|>` / `<|endoftext|>`.
 */
const FAMILY_SIGNATURES: readonly { readonly family: string; readonly ids: readonly number[] }[] = [
  { family: "llama3", ids: [128000, 128006] },
  { family: "qwen3", ids: [151644, 151643] },
];

/** How many leading ids are searched for a signature: the template's first tokens. */
const SIGNATURE_WINDOW = 8;

/** Lower-case letters and digits only: `Qwen/Qwen3-4B` -> `qwenqwen34b`, `Llama-3.1` -> `llama31`. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** The catalog name of `family` (exact, else the longest name containing it), or undefined. */
function nameOfFamily(family: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const name of names) {
    const n = normalized(name);
    if (n === family) return name;
    if (n.includes(family) && (best === undefined || name.length > best.length)) best = name;
  }
  return best;
}

/** The catalog name a recorded tokenizer or model string (`Qwen/Qwen3-4B`, a folder path) stands for. */
function nameOfRecorded(recorded: string, names: readonly string[]): string | undefined {
  const exact = names.find((name) => name === recorded);
  if (exact !== undefined) return exact;
  const base = recorded.split(/[\\/]/).filter(Boolean).at(-1) ?? recorded;
  const byBase = names.find((name) => name === base);
  if (byBase !== undefined) return byBase;
  const wanted = normalized(recorded);
  for (const { family } of FAMILY_SIGNATURES) {
    if (wanted.includes(family)) return nameOfFamily(family, names);
  }
  return undefined;
}

/** The family whose signature id appears among the first few ids (token-index space), if any. */
function familyOfIds(ids: ArrayLike<number>): string | undefined {
  const end = Math.min(ids.length, SIGNATURE_WINDOW);
  for (let i = 0; i < end; i++) {
    const id = ids[i];
    for (const { family, ids: signature } of FAMILY_SIGNATURES) {
      if (id !== undefined && signature.includes(id)) return family;
    }
  }
  return undefined;
}

/**
 * The tokenizer for a trajectory: the user's pick, else the one its record names (`tokenizer`, then
 * `model`) when the server has it, else the family its first ids belong to (the server's default
 * when that is of the family, so a local folder of the right family wins over the bundled one),
 * else the server's default.
 */
export function chooseTokenizer(input: {
  readonly picked: string | undefined;
  readonly recorded: readonly (string | undefined)[];
  readonly firstIds: ArrayLike<number>;
  readonly names: readonly string[];
  readonly fallback: string;
}): TokenizerChoice {
  const { picked, recorded, firstIds, names, fallback } = input;
  if (picked !== undefined) return { name: picked, reason: "picked" };
  for (const value of recorded) {
    if (value === undefined || value === "") continue;
    const name = nameOfRecorded(value, names);
    if (name !== undefined) return { name, reason: "recorded" };
  }
  const family = familyOfIds(firstIds);
  if (family !== undefined) {
    if (normalized(fallback).includes(family)) return { name: fallback, reason: "ids" };
    const name = nameOfFamily(family, names);
    if (name !== undefined) return { name, reason: "ids" };
  }
  return { name: fallback, reason: "default" };
}

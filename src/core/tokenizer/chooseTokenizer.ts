import type { Trajectory } from "../trajectory/types";

/**
 * Which of the server's tokenizers turns a recorded trajectory's ids into text. Rollout files from
 * slime, atropos or strands rarely name their tokenizer, and ids decoded with the wrong vocabulary
 * read as plausible nonsense; so the choice, and why it was made, is always shown beside the view.
 */

/** How the tokenizer was chosen: named by the user, by the record, recognised from the ids, or the server's default. */
export type TokenizerReason = "picked" | "recorded" | "recorded-related" | "ids" | "default";

/** Why a tokenizer was chosen, in words: the browser shows it beside the view, the CLI prints it. */
export const TOKENIZER_REASON_TEXT: Readonly<Record<TokenizerReason, string>> = {
  picked: "picked by the user",
  recorded: "named by the record",
  "recorded-related":
    "the record names Llama 3.1, whose tokenizer is not installed: Llama 3's reads the same ids",
  ids: "recognised from the first token ids",
  default: "the default: the record names none and no known family is recognised from its ids",
};

export interface TokenizerChoice {
  readonly name: string;
  readonly reason: TokenizerReason;
}

/** A family's signature: ids its chat template starts a sequence with, and the text each stands for. */
export interface FamilySignature {
  readonly family: string;
  readonly tokens: readonly { readonly id: number; readonly text: string }[];
}

/**
 * Ids that only one family's chat template starts a sequence with: Llama-3's
 * `<|begin_of_text|>` / `<|start_header_id|>`, Qwen's `<|im_start|>` / `<|endoftext|>`.
 */
export const FAMILY_SIGNATURES: readonly FamilySignature[] = [
  {
    family: "llama3",
    tokens: [
      { id: 128000, text: "<|begin_of_text|>" },
      { id: 128006, text: "<|start_header_id|>" },
    ],
  },
  {
    family: "qwen3",
    tokens: [
      { id: 151644, text: "<|im_start|>" },
      { id: 151643, text: "<|endoftext|>" },
    ],
  },
];

/**
 * Families whose ids are ordinary tokens of other vocabularies, recognised only by how a sequence
 * starts: these exact first ids, then (`within`) one of the given ids among the first few. gpt-oss's
 * `<|start|>`, Gemma's `<bos><start_of_turn>`, DeepSeek's `<｜begin▁of▁sentence｜>` followed (after
 * a short system prompt at most) by `<｜User｜>`.
 */
export const START_SIGNATURES: readonly (FamilySignature & {
  readonly within?: readonly { readonly id: number; readonly text: string }[];
})[] = [
  { family: "gptoss", tokens: [{ id: 200006, text: "<|start|>" }] },
  {
    family: "gemma3",
    tokens: [
      { id: 2, text: "<bos>" },
      { id: 105, text: "<start_of_turn>" },
    ],
  },
  {
    family: "deepseek_v3",
    tokens: [{ id: 0, text: "<｜begin▁of▁sentence｜>" }],
    within: [
      { id: 128803, text: "<｜User｜>" },
      { id: 128804, text: "<｜Assistant｜>" },
    ],
  },
];

/** How many leading ids are searched for a signature: the template's first tokens. */
export const SIGNATURE_WINDOW = 8;

/** Lower-case letters and digits only: `Qwen/Qwen3-4B` -> `qwenqwen34b`, `Llama-3.1` -> `llama31`. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** The catalog name of `family` (exact, else the longest name containing it), or undefined. */
function nameOfFamily(familyId: string, names: readonly string[]): string | undefined {
  const family = normalized(familyId);
  let best: string | undefined;
  for (const name of names) {
    const n = normalized(name);
    if (n === family) return name;
    if (n.includes(family) && (best === undefined || name.length > best.length)) best = name;
  }
  return best;
}

/**
 * Families a model name may name that share a signature family's vocabulary, most specific first:
 * a Llama 3.1 model (`meta-llama/Llama-3.1-8B-Instruct`) is read with the llama3_1 tokenizer when
 * it is installed, else with Llama 3's (same ids; only special-token names differ).
 */
const RELATED_FAMILIES: readonly { readonly family: string; readonly instead: string }[] = [
  { family: "llama31", instead: "llama3" },
];

/** The vocabulary a catalog name reads ids with: its family, Llama 3.1 counted as Llama 3's. */
function vocabularyOf(name: string): string {
  const n = normalized(name);
  for (const { family, instead } of RELATED_FAMILIES) {
    if (n.includes(family)) return normalized(instead);
  }
  return n;
}

/** True when two catalog names read the same ids (the same name, or Llama 3 and 3.1). */
export function sameVocabulary(a: string, b: string): boolean {
  return a === b || vocabularyOf(a) === vocabularyOf(b);
}

/** The catalog name a recorded tokenizer or model string (`Qwen/Qwen3-4B`, a folder path) stands for. */
function nameOfRecorded(recorded: string, names: readonly string[]): TokenizerChoice | undefined {
  const found = (name: string | undefined): TokenizerChoice | undefined =>
    name === undefined ? undefined : { name, reason: "recorded" };
  const exact = names.find((name) => name === recorded);
  if (exact !== undefined) return found(exact);
  const base = recorded.split(/[\\/]/).filter(Boolean).at(-1) ?? recorded;
  const byBase = names.find((name) => name === base);
  if (byBase !== undefined) return found(byBase);
  const wanted = normalized(recorded);
  for (const { family, instead } of RELATED_FAMILIES) {
    if (!wanted.includes(family)) continue;
    const own = names.find((name) => normalized(name) === family);
    if (own !== undefined) return found(own);
    const other = nameOfFamily(instead, names);
    if (other !== undefined) return { name: other, reason: "recorded-related" };
  }
  for (const { family } of FAMILY_SIGNATURES) {
    if (wanted.includes(family)) return found(nameOfFamily(family, names));
  }
  return undefined;
}

/** A signature id found among a sequence's first ids: which family, which token, where. */
export interface SignatureHit {
  readonly family: string;
  readonly id: number;
  readonly text: string;
  /** Index of the id in the sequence. */
  readonly index: number;
}

/** A start signature the ids begin with: its last start token (or the `within` id found). */
function startSignatureOf(ids: ArrayLike<number>, end: number): SignatureHit | undefined {
  for (const { family, tokens, within } of START_SIGNATURES) {
    if (!tokens.every((t, index) => ids[index] === t.id)) continue;
    if (within === undefined) {
      const index = tokens.length - 1;
      const token = tokens[index];
      if (token) return { family, id: token.id, text: token.text, index };
      continue;
    }
    for (let index = tokens.length; index < end; index++) {
      const token = within.find((t) => t.id === ids[index]);
      if (token) return { family, id: token.id, text: token.text, index };
    }
  }
  return undefined;
}

/** The first signature id among the first few ids (token-index space), if any. */
export function signatureOfIds(ids: ArrayLike<number>): SignatureHit | undefined {
  const end = Math.min(ids.length, SIGNATURE_WINDOW);
  const start = startSignatureOf(ids, end);
  if (start !== undefined) return start;
  for (let index = 0; index < end; index++) {
    const id = ids[index];
    for (const { family, tokens } of FAMILY_SIGNATURES) {
      const token = tokens.find((t) => t.id === id);
      if (token !== undefined) return { family, id: token.id, text: token.text, index };
    }
  }
  return undefined;
}

/** What reading a family needs of a trajectory: its segments' ids (raw ids are one segment). */
export interface IdsOnly {
  readonly segments: readonly { readonly tokenIds: readonly number[] }[];
}

/** The first `count` ids of a trajectory, across its segments: what its family is read from. */
export function leadingIds(trajectory: IdsOnly, count = SIGNATURE_WINDOW): number[] {
  const ids: number[] = [];
  for (const segment of trajectory.segments) {
    for (const id of segment.tokenIds) {
      if (ids.length === count) return ids;
      ids.push(id);
    }
  }
  return ids;
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
    const choice = nameOfRecorded(value, names);
    if (choice !== undefined) return choice;
  }
  const family = signatureOfIds(firstIds)?.family;
  if (family !== undefined) {
    if (normalized(fallback).includes(normalized(family))) return { name: fallback, reason: "ids" };
    const name = nameOfFamily(family, names);
    if (name !== undefined) return { name, reason: "ids" };
  }
  return { name: fallback, reason: "default" };
}

/** `chooseTokenizer` for a trajectory: its `tokenizer`/`model` fields and its first ids. */
export function chooseTokenizerFor(
  trajectory: Trajectory | undefined,
  context: {
    readonly picked: string | undefined;
    readonly names: readonly string[];
    readonly fallback: string;
  },
): TokenizerChoice {
  return chooseTokenizer({
    ...context,
    recorded: [trajectory?.tokenizer, trajectory?.model],
    firstIds: trajectory ? leadingIds(trajectory) : [],
  });
}

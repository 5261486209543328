/**
 * Whether a trajectory's ids can belong to a tokenizer at all. Ids decoded with the wrong
 * vocabulary read as plausible nonsense and retokenize into "drift" everywhere; so before any
 * drift check the ids must lie inside the vocabulary, and a family signature among the first ids
 * (Llama-3's `<|begin_of_text|>`, Qwen's `<|im_start|>`) must be read by the tokenizer as that
 * very token. Compared by text, not by name: a local folder of the same family passes.
 */
import { type IdsOnly, leadingIds, signatureOfIds } from "./chooseTokenizer";
import type { Tokenizer } from "./types";

/** Why a trajectory's ids cannot be the tokenizer's. */
export interface IdsMisfit {
  readonly kind: "vocabulary" | "signature";
  readonly message: string;
}

/** The piece of a tokenizer the check needs. */
export type FitTokenizer = Pick<Tokenizer, "id" | "vocabSize" | "decode">;

/**
 * A check of trajectories against `tokenizer`: undefined when its ids can be the tokenizer's,
 * else why not. The signature verdicts are cached per id, so the check is one pass over the ids.
 */
export function createIdsFitCheck(
  tokenizer: FitTokenizer,
): (trajectory: IdsOnly) => IdsMisfit | undefined {
  const readAs = new Map<number, string | undefined>();
  const textOf = (id: number): string | undefined => {
    if (!readAs.has(id)) {
      let text: string | undefined;
      try {
        text = tokenizer.decode([id]);
      } catch {
        text = undefined;
      }
      readAs.set(id, text);
    }
    return readAs.get(id);
  };
  const name = tokenizer.id;
  return (trajectory) => {
    let outside = 0;
    let first: { id: number; index: number } | undefined;
    let index = 0;
    for (const segment of trajectory.segments) {
      for (const id of segment.tokenIds) {
        if (!Number.isInteger(id) || id < 0 || id >= tokenizer.vocabSize) {
          outside += 1;
          first ??= { id, index };
        }
        index += 1;
      }
    }
    if (first !== undefined) {
      return {
        kind: "vocabulary",
        message:
          `${outside} token id(s) outside ${name}'s vocabulary (ids 0-${tokenizer.vocabSize - 1}), ` +
          `the first ${first.id} at token ${first.index}: the ids are not ${name}'s`,
      };
    }
    const hit = signatureOfIds(leadingIds(trajectory));
    if (hit === undefined) return undefined;
    const text = textOf(hit.id);
    if (text === hit.text) return undefined;
    return {
      kind: "signature",
      message:
        `token ${hit.index} is ${hit.id}, ${hit.family}'s ${hit.text}, which ${name} reads as ` +
        `${JSON.stringify(text)}: the ids are ${hit.family}'s, not ${name}'s`,
    };
  };
}

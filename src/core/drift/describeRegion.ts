import { escapeText } from "../tokenizer/utf8Text";
import type { DriftClass, DriftMode, DriftRegion, DriftResult, RegionToken } from "./types";

/** What a region means for training, in words: a headline and one sentence per class. */
export interface RegionWords {
  /** The trainable impact, e.g. "2 trained tokens would be trained on a different segmentation". */
  readonly impact: string;
  /** What each side holds, e.g. "the model produced ')"' + '}}\n', a text pipeline ...". */
  readonly sides: string;
  /** One phrase per class, in the region's class order. */
  readonly classes: readonly string[];
  readonly isTrained: boolean;
}

/** Pieces joined as `'a' + 'b'`, escaped for one line; `nothing` when empty. */
export function quotePieces(tokens: readonly RegionToken[]): string {
  if (tokens.length === 0) return "nothing";
  return tokens.map((t) => `'${escapeText(t.piece)}'`).join(" + ");
}

const REBUILT_BY_MODE: Readonly<Record<DriftMode, string>> = {
  roundtrip: "a text pipeline (encode(decode(ids))) would train on",
  template: "the chat template over the messages gives",
  text: "re-encoding the recorded text gives",
};

const CLASS_WORDS: Readonly<Record<DriftClass, string>> = {
  merge: "merge: several recorded tokens become one",
  split: "split: one recorded token becomes several",
  resegment: "resegment: the same bytes, cut at different places",
  special_token: "special token: a special/added token takes part",
  segment_boundary: "segment boundary: the region crosses from one segment into the next",
  mask_straddle:
    "mask straddle: it mixes trained and untrained tokens, so no loss mask fits the rebuilt tokens",
  lossy_text: "lossy text: the bytes differ, text cannot give back what the model produced",
  template_rewrite: "template rewrite: the template renders different text here",
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Describes one region for a researcher: whether trained (loss mask 1) tokens are affected, what
 * the model produced versus what the rebuilt side holds, and each class in words.
 */
export function describeRegion(region: DriftRegion, mode: DriftMode): RegionWords {
  const n = region.trainableAffected;
  const what = region.classes.some((c) => c === "lossy_text" || c === "template_rewrite")
    ? "different tokens of different text"
    : "a different segmentation";
  const impact =
    n > 0
      ? `${plural(n, "trained token")} would be trained on ${what}`
      : `no trained token affected (${region.role ?? "recorded"} tokens only)`;
  const producer = region.role === "model" ? "the model produced" : "the record holds";
  const sides = `${producer} ${quotePieces(region.tito)}, ${REBUILT_BY_MODE[mode]} ${quotePieces(region.retok)}`;
  return {
    impact,
    sides,
    classes: region.classes.map((c) => CLASS_WORDS[c]),
    isTrained: n > 0,
  };
}

/**
 * The "text equal" answer of one check: whether both sides spell the same bytes and, when tokens
 * drifted, whether only the segmentation differs. With no drift there is nothing that differs.
 */
export function textEqualWords(result: Pick<DriftResult, "textEqual" | "regions">): string {
  if (!result.textEqual) return "no (the bytes differ)";
  return result.regions.length === 0 ? "yes" : "yes (only the segmentation differs)";
}

/**
 * What each drift check reads from a record, and why a check cannot run on it. One rule for the
 * CLI (`rollout-lens drift`), the browser's file scan and the trajectory page: a check whose input
 * is missing is reported unchecked with this reason, never as "no drift" (docs/drift.md).
 */
import { trajectoryIdsAbsentReason } from "../formats/idsAbsent";
import { isSlimeSample } from "../formats/types";
import {
  chooseTokenizerFor,
  type TokenizerChoice,
  type TokenizerReason,
} from "../tokenizer/chooseTokenizer";
import type { IdsMisfit } from "../tokenizer/idsFit";
import { RENDERED_MESSAGES_REASON, rowMessages } from "../trajectory/rowText";
import type { ChatMessage, Trajectory } from "../trajectory/types";
import type { DriftMode } from "./types";

/** A recorded text and the [start, end) token range (token index space) it claims to spell. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Recorded texts: each segment's `text` (rollout-lens/v1) or slime's `response` string. */
export function recordedTexts(t: Trajectory): TextSpan[] {
  const spans: TextSpan[] = [];
  let start = 0;
  for (const s of t.segments) {
    const end = start + s.tokenIds.length;
    if (s.text !== undefined) spans.push({ start, end, text: s.text });
    start = end;
  }
  const response = t.metadata.response;
  if (spans.length === 0 && isSlimeSample(t.format) && typeof response === "string") {
    const first = t.segments[0];
    const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
    spans.push({ start: promptLength, end: start, text: response });
  }
  return spans;
}

/** The messages the template check renders (as recorded, roles included), or why there are none. */
export function templateMessages(
  t: Trajectory,
): { readonly messages: readonly ChatMessage[] } | { readonly reason: string } {
  const m = rowMessages(t);
  if (m.kind === "messages") return { messages: m.messages };
  return { reason: m.kind === "rendered" ? RENDERED_MESSAGES_REASON : m.reason };
}

/** Why `mode` has no input on `t` (no messages, no recorded text); undefined when it has. */
export function modeInputMissing(t: Trajectory, mode: DriftMode): string | undefined {
  if (mode === "roundtrip") return undefined;
  if (mode === "template") {
    const input = templateMessages(t);
    return "reason" in input ? `no input for the template check: ${input.reason}` : undefined;
  }
  return recordedTexts(t).length > 0
    ? undefined
    : "no input for the text check: the record carries no decoded text for its tokens " +
        "(segment texts, or slime's `response`)";
}

/** The tokenizer a whole file is checked with, as `chooseTokenizerFor` chose it. */
export interface DriftGate {
  /** Why `t`'s ids cannot be the tokenizer's (createIdsFitCheck); undefined when they can. */
  readonly misfit?: (t: Trajectory) => IdsMisfit | undefined;
  /**
   * The file's tokenizer, when it was chosen from its first trajectory (not picked): a record
   * naming another one is then not checked with it.
   */
  readonly chosen?: {
    readonly name: string;
    readonly names: readonly string[];
    readonly fallback: string;
    /** Why the file's tokenizer was chosen; "default": its first trajectory gave no evidence. */
    readonly reason?: TokenizerReason;
  };
}

/**
 * The gate's `chosen` for a file whose tokenizer is `choice` among `names` (else `fallback`):
 * undefined when the user picked it. The CLI and the browser's scan build it here alike.
 */
export function chosenForFile(
  choice: TokenizerChoice,
  names: readonly string[],
  fallback: string,
): DriftGate["chosen"] {
  return choice.reason === "picked" ? undefined : { ...choice, names, fallback };
}

/**
 * Why a trajectory is not checked when nothing says which tokenizer wrote its ids: a verdict with
 * a guessed vocabulary (drift or none) would be about ids read as another model's tokens.
 */
export const UNKNOWN_TOKENIZER_REASON =
  "tokenizer unknown: the record names none and neither its first ids nor the file's match a " +
  "known family; pick the tokenizer (--tokenizer NAME, or the tokenizer menu) to check it";

/**
 * Why no check can run on `t` with the file's tokenizer: no ids (text only), ids that are not
 * the tokenizer's, or a record naming another tokenizer than the one the file is checked with.
 */
export function trajectoryUncheckedReason(t: Trajectory, gate: DriftGate): string | undefined {
  const absent = trajectoryIdsAbsentReason(t);
  if (absent !== undefined) return absent;
  const misfit = gate.misfit?.(t);
  if (misfit !== undefined) return `tokenizer mismatch: ${misfit.message}`;
  const chosen = gate.chosen;
  if (chosen === undefined) return undefined;
  const own = chooseTokenizerFor(t, { picked: undefined, ...chosen });
  if (own.reason === "default" && chosen.reason === "default") return UNKNOWN_TOKENIZER_REASON;
  if (own.reason === "recorded" && own.name !== chosen.name) {
    return (
      `tokenizer mismatch: the record names ${own.name}, but the file is checked with ` +
      `${chosen.name} (chosen from its first trajectory)`
    );
  }
  return undefined;
}

/** One check that could not run on a trajectory, and why. */
export interface UncheckedMode {
  readonly mode: DriftMode;
  readonly reason: string;
}

/** The checks of `modes` that cannot run on `t` (whole-trajectory reason first, then inputs). */
export function uncheckedModes(
  t: Trajectory,
  modes: readonly DriftMode[],
  gate: DriftGate,
): UncheckedMode[] {
  const whole = trajectoryUncheckedReason(t, gate);
  if (whole !== undefined) return modes.map((mode) => ({ mode, reason: whole }));
  return modes.flatMap((mode) => {
    const reason = modeInputMissing(t, mode);
    return reason === undefined ? [] : [{ mode, reason }];
  });
}

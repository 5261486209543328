import { checkPrefixInvariant, type LoggedCall } from "../tito/prefixInvariant";
import { renderWithoutGenerationPrompt } from "../tito/prompts";
import { displayPieces } from "../tokenizer/pieces";
import type { RoundTripAccelerator } from "../tokenizer/roundTripFast";
import type { Tokenizer } from "../tokenizer/types";
import { escapeText, utf8Decode } from "../tokenizer/utf8Text";
import { flattenSegments } from "../trajectory/flatten";
import type { ChatMessage, Segment, Trajectory } from "../trajectory/types";
import { alignByBytes } from "./alignTokens";
import { byteEqualRuns } from "./byteDiff";
import { recordedTexts, type TextSpan, templateMessages } from "./driftInputs";
import { bytesAndOffsets, firstDivergence, sameIds } from "./idBytes";
import { checkTurnPrefixes } from "./prefixCheck";
import { recordedTemplateOptions } from "./templateInput";
import type {
  CallPrefixResult,
  DriftClass,
  DriftMode,
  DriftRegion,
  DriftResult,
  RegionToken,
} from "./types";

export type { RoundTripAccelerator } from "../tokenizer/roundTripFast";

export interface DriftOptions {
  /** Checks to run; a check whose input the record lacks (messages, text) is skipped. */
  readonly modes?: readonly DriftMode[];
  readonly accelerator?: RoundTripAccelerator;
}

/** Per-token context of the recorded side, only needed once a difference is found. */
interface RecordedDetails {
  readonly lossMask: readonly (0 | 1)[];
  readonly logprobs: readonly (number | null)[];
  readonly segmentOf: Int32Array;
}

/** The recorded (TITO) side: flat ids in token index space; the rest built on first use. */
interface RecordedSide {
  readonly ids: readonly number[];
  readonly segments: readonly Segment[];
  details(): RecordedDetails;
}

function recordedSide(t: Trajectory): RecordedSide {
  // Most trajectories are clean: flatten only the ids up front, not masks and logprobs.
  let n = 0;
  for (const s of t.segments) n += s.tokenIds.length;
  // Preallocated (a holey but fast array) below V8's fast-elements limit; pushed beyond it.
  const ids: number[] = n < 65536 ? new Array(n) : [];
  n = 0;
  for (const s of t.segments) for (const id of s.tokenIds) ids[n++] = id;
  let details: RecordedDetails | undefined;
  return {
    ids,
    segments: t.segments,
    details() {
      if (!details) {
        const flat = flattenSegments(t.segments);
        const segmentOf = new Int32Array(ids.length);
        for (const [s, o] of flat.offsets.entries()) segmentOf.fill(s, o.start, o.end);
        details = { lossMask: flat.lossMask, logprobs: flat.logprobs, segmentOf };
      }
      return details;
    },
  };
}

export { firstDivergence };

function regionTokens(
  ids: readonly number[],
  tokenizer: Tokenizer,
  logprobs?: readonly (number | null)[],
): RegionToken[] {
  const pieces = displayPieces(ids, (id) => tokenizer.tokenBytes(id));
  return ids.map((id, k) => {
    const logprob = logprobs?.[k];
    return logprob === null || logprob === undefined
      ? { id, piece: pieces[k] ?? "" }
      : { id, piece: pieces[k] ?? "", logprob };
  });
}

/**
 * Compares the recorded tokens with `rebuilt` ids by byte offsets and classifies each region.
 * Token indices of both sides, byte offsets of the recorded side.
 */
function compareSides(
  side: RecordedSide,
  rebuilt: readonly number[],
  mode: DriftMode,
  tokenizer: Tokenizer,
): DriftResult {
  const t = side.ids;
  const base = { mode, lenTito: t.length, lenRetok: rebuilt.length };
  if (sameIds(t, rebuilt)) {
    return {
      ...base,
      textEqual: true,
      firstDivergenceIndex: undefined,
      regions: [],
      trainableTokensAffected: 0,
    };
  }
  const { lossMask, logprobs, segmentOf } = side.details();
  const { bytes: tBytes, offsets: tOff } = bytesAndOffsets(t, tokenizer);
  const { bytes: rBytes, offsets: rOff } = bytesAndOffsets(rebuilt, tokenizer);
  const runs = byteEqualRuns(tBytes, rBytes);
  const textEqual =
    tBytes.length === rBytes.length && runs.length <= 1 && (runs[0]?.length ?? 0) === tBytes.length;
  const regions = alignByBytes(t, tOff, rebuilt, rOff, runs).map((a): DriftRegion => {
    const tIds = t.slice(a.i0, a.i1);
    const rIds = rebuilt.slice(a.j0, a.j1);
    const classes: DriftClass[] = [];
    if (a.isLossy) classes.push(mode === "template" ? "template_rewrite" : "lossy_text");
    else if (tIds.length > 1 && rIds.length === 1) classes.push("merge");
    else if (tIds.length === 1 && rIds.length > 1) classes.push("split");
    else classes.push("resegment");
    if ([...tIds, ...rIds].some((id) => tokenizer.isAdded(id))) classes.push("special_token");
    const segment = segmentOf[Math.min(a.i0, t.length - 1)] ?? 0;
    if (a.i1 > a.i0 && segmentOf[a.i1 - 1] !== segmentOf[a.i0]) {
      classes.push("segment_boundary");
    }
    const mask = lossMask.slice(a.i0, a.i1);
    if (mask.includes(0) && mask.includes(1)) classes.push("mask_straddle");
    let trainableAffected = 0;
    let trainableLogprobSum = 0;
    for (let i = a.i0; i < a.i1; i++) {
      if (lossMask[i] !== 1) continue;
      trainableAffected++;
      trainableLogprobSum += logprobs[i] ?? 0;
    }
    const tb0 = tOff[a.i0] ?? 0;
    const tb1 = tOff[a.i1] ?? 0;
    return {
      t: [a.i0, a.i1],
      r: [a.j0, a.j1],
      bytes: [tb0, tb1],
      text: escapeText(utf8Decode(tBytes, tb0, tb1)),
      retokText: escapeText(utf8Decode(rBytes, rOff[a.j0] ?? 0, rOff[a.j1] ?? 0)),
      tito: regionTokens(tIds, tokenizer, logprobs.slice(a.i0, a.i1)),
      retok: regionTokens(rIds, tokenizer),
      delta: rIds.length - tIds.length,
      classes,
      segment,
      role: side.segments[segment]?.kind,
      trainableAffected,
      trainableLogprobSum,
    };
  });
  return {
    ...base,
    textEqual,
    firstDivergenceIndex: firstDivergence(t, rebuilt),
    regions,
    trainableTokensAffected: regions.reduce((sum, r) => sum + r.trainableAffected, 0),
  };
}

/** Round trip: `encode(decode(ids))` with special tokens kept and no clean-up of spaces. */
function roundTripIds(
  ids: readonly number[],
  tokenizer: Tokenizer,
  accelerator?: RoundTripAccelerator,
): readonly number[] {
  if (ids.length === 0) return ids;
  return accelerator ? accelerator.roundTrip(ids) : tokenizer.encode(tokenizer.decode(ids));
}

/**
 * Template: the chat template over the recorded messages, encoded. The generation prompt is added
 * when the record ends outside a model turn, unless the record stops before it (an episode that
 * ended on a tool result or the environment's last word, as atropos writes them). Templates close
 * the last assistant turn with end-of-turn + `\n`; a model stops at end-of-turn, so whitespace
 * after the rebuilt side's last end-of-turn id is dropped when the record ends with that id.
 */
function templateIds(
  side: RecordedSide,
  t: Trajectory,
  messages: readonly ChatMessage[],
  tokenizer: Tokenizer,
): number[] {
  const lastKind = side.segments[side.segments.length - 1]?.kind;
  const options = recordedTemplateOptions(t);
  const open = lastKind !== undefined && lastKind !== "model";
  const text = tokenizer.applyChatTemplate(messages, { ...options, addGenerationPrompt: open });
  // The rendering may end in a generation prompt (asked for, or one the template always writes).
  const bare = renderWithoutGenerationPrompt(tokenizer, messages, options);
  let ids: number[] | undefined;
  if (bare.length < text.length && text.startsWith(bare)) {
    const base = tokenizer.encode(bare);
    if (side.ids.length <= base.length) ids = base;
  }
  ids ??= tokenizer.encode(text);
  const lastRecorded = side.ids[side.ids.length - 1];
  if (lastRecorded === undefined || !tokenizer.eosTokenIds.includes(lastRecorded)) return ids;
  const k = ids.lastIndexOf(lastRecorded);
  if (k >= 0 && k < ids.length - 1 && tokenizer.decode(ids.slice(k + 1)).trim() === "") {
    return ids.slice(0, k + 1);
  }
  return ids;
}

/** Text: each recorded text re-encoded in place of the tokens it claims to spell. */
function textIds(side: RecordedSide, spans: readonly TextSpan[], tokenizer: Tokenizer): number[] {
  const out: number[] = [];
  let at = 0;
  for (const span of spans) {
    for (let i = at; i < span.start; i++) out.push(side.ids[i] ?? 0);
    for (const id of tokenizer.encode(span.text)) out.push(id);
    at = span.end;
  }
  for (let i = at; i < side.ids.length; i++) out.push(side.ids[i] ?? 0);
  return out;
}

/**
 * Runs the drift checks on one trajectory with `tokenizer`: one result per check that applies
 * (roundtrip always; template when the record carries messages, with the per-turn prefix check in
 * `turns`; text when it carries texts). A check without input gives no result: callers report it
 * unchecked with `modeInputMissing`'s reason (driftInputs.ts).
 */
export function detectDrift(
  t: Trajectory,
  tokenizer: Tokenizer,
  options: DriftOptions = {},
): DriftResult[] {
  const modes = options.modes ?? ["roundtrip"];
  const side = recordedSide(t);
  const results: DriftResult[] = [];
  for (const mode of modes) {
    if (mode === "roundtrip") {
      const rebuilt = roundTripIds(side.ids, tokenizer, options.accelerator);
      results.push(compareSides(side, rebuilt, mode, tokenizer));
    } else if (mode === "template") {
      const input = templateMessages(t);
      if (!("messages" in input)) continue;
      const rebuilt = templateIds(side, t, input.messages, tokenizer);
      const whole = compareSides(side, rebuilt, mode, tokenizer);
      const turns = checkTurnPrefixes(t, tokenizer, { accelerator: options.accelerator });
      results.push({ ...whole, turns });
    } else {
      const spans = recordedTexts(t);
      if (spans.length === 0) continue;
      results.push(compareSides(side, textIds(side, spans, tokenizer), mode, tokenizer));
    }
  }
  return results;
}

/** The per-call prefix check (token indices of each call's input); undefined without `calls`. */
export function checkCallPrefixes(t: Trajectory): CallPrefixResult | undefined {
  if (!t.calls || t.calls.length === 0) return undefined;
  const ids = flattenSegments(t.segments).tokenIds;
  const calls: LoggedCall[] = t.calls.map((c) => ({
    inputIds: ids.slice(0, c.inputLen),
    outputIds: ids.slice(c.inputLen, c.inputLen + c.outputLen),
  }));
  const check = checkPrefixInvariant(calls);
  return check.ok
    ? { ok: true }
    : { ok: false, callIndex: check.callIndex, message: check.message };
}

/**
 * The per-turn prefix check: for every model turn k of a recorded multi-turn trajectory, the
 * messages before its assistant message are rendered with the chat template (generation prompt
 * added), encoded, and compared with the ids the model really had as input at that turn (every
 * recorded token before model segment k). Each turn is classified as the frameworks classify a
 * re-rendered prompt against the tokens they hold (slime's CLEAN / REALIGN / FORK):
 * - CLEAN: the rendering is exactly the recorded prefix;
 * - REALIGN: the same text, other ids (the segmentation differs, e.g. at a segment boundary);
 * - FORK: the text differs: the template rewrote history the model saw.
 * A non-CLEAN turn names its first divergence (recorded token index), the removed and inserted
 * tokens of each difference, and the rule (turnRules.ts, the family rules from core/families) that explains it.
 */
import { familyOfName } from "../families/families";
import type { FamilyId } from "../families/types";
import { displayPieces } from "../tokenizer/pieces";
import { roundTripPlanFor } from "../tokenizer/roundTripPlan";
import type { ChatTemplateMessage, Tokenizer } from "../tokenizer/types";
import { utf8Decode } from "../tokenizer/utf8Text";
import { isAssistantRole } from "../trajectory/roles";
import type { Trajectory } from "../trajectory/types";
import { alignByBytes } from "./alignTokens";
import { byteEqualRuns } from "./byteDiff";
import type { RoundTripAccelerator } from "./detectDrift";
import { templateMessages } from "./driftInputs";
import { bytesAndOffsets, firstDivergence, sameIds } from "./idBytes";
import { recordedTemplateOptions } from "./templateInput";
import { ruleForTurn, turnRule } from "./turnRules";

export type TurnClass = "CLEAN" | "REALIGN" | "FORK";

export const TURN_CLASSES: readonly TurnClass[] = ["CLEAN", "REALIGN", "FORK"];

/** One turn's rendering: the text the template gives for the messages before its assistant message. */
export interface TurnRender {
  /** The model segment's turn number (1-based, as `Segment.turn`). */
  readonly turn: number;
  /** Index of the model segment in `segments`. */
  readonly segment: number;
  /** Recorded tokens before that segment: the model's input at this turn. */
  readonly prefixLength: number;
  /** How many messages were rendered (`messages[:k]`). */
  readonly messages: number;
  readonly text: string;
}

/** The renderings to encode, and why some turns (or all) could not be rendered. */
export interface TurnPlan {
  readonly renders: readonly TurnRender[];
  /** Set when not every model turn got a rendering (no messages, counts disagree, template error). */
  readonly note?: string;
}

/** One recorded token of a difference, with its display piece. */
export interface TurnToken {
  readonly id: number;
  readonly piece: string;
}

/**
 * One place where recorded prefix and rendering differ: recorded tokens `t:[i0, i1)` (removed: the
 * rendering lacks them) against rendered tokens `r:[j0, j1)` (inserted: the record lacks them).
 */
export interface TurnDiff {
  readonly t: readonly [number, number];
  readonly r: readonly [number, number];
  readonly removed: readonly TurnToken[];
  readonly inserted: readonly TurnToken[];
  /** True when the bytes differ here, not only their segmentation. */
  readonly textChanged: boolean;
}

export interface TurnCheck {
  readonly turn: number;
  readonly segment: number;
  readonly class: TurnClass;
  /** First recorded token index where the rendering differs; undefined when CLEAN. */
  readonly firstDivergenceIndex: number | undefined;
  readonly prefixLength: number;
  readonly renderedLength: number;
  readonly diffs: readonly TurnDiff[];
  /** Rule id (turnRules.ts) for a non-CLEAN turn. */
  readonly rule?: string;
  /** The rule's sentence. */
  readonly sentence?: string;
}

/** The per-turn check of one trajectory. */
export interface TurnReport {
  readonly turns: readonly TurnCheck[];
  readonly note?: string;
}

/** Differences listed per turn at most (the first ones; the class covers all). */
const MAX_DIFFS = 16;
/** Tokens listed per side of a difference at most. */
const MAX_DIFF_TOKENS = 64;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Renders `messages[:k]` (generation prompt added) for the k-th model segment's assistant message,
 * for every model segment that has one. Pure text: encoding is the caller's (see `checkTurnPrefixes`).
 */
export function planTurnRenders(t: Trajectory, tokenizer: Tokenizer): TurnPlan {
  const input = templateMessages(t);
  if (!("messages" in input)) return { renders: [], note: input.reason };
  const messages: readonly ChatTemplateMessage[] = input.messages;
  const assistants: number[] = [];
  // Known aliases count (atropos' `agent`); the template still renders the role as recorded.
  for (const [i, m] of messages.entries()) if (isAssistantRole(m.role)) assistants.push(i);
  const models: { segment: number; turn: number; prefixLength: number }[] = [];
  let at = 0;
  for (const [i, s] of t.segments.entries()) {
    if (s.kind === "model") models.push({ segment: i, turn: s.turn, prefixLength: at });
    at += s.tokenIds.length;
  }
  const options = { ...recordedTemplateOptions(t), addGenerationPrompt: true };
  const renders: TurnRender[] = [];
  const n = Math.min(assistants.length, models.length);
  for (let k = 0; k < n; k++) {
    const model = models[k];
    const upTo = assistants[k] ?? 0;
    if (!model) continue;
    try {
      const text = tokenizer.applyChatTemplate(messages.slice(0, upTo), options);
      renders.push({ ...model, messages: upTo, text });
    } catch (error) {
      return { renders, note: `turn ${model.turn}: ${messageOf(error)}` };
    }
  }
  if (assistants.length !== models.length) {
    const note =
      `the record has ${models.length} model segment(s) and ${assistants.length} assistant ` +
      `message(s); ${n} turn(s) checked`;
    return { renders, note };
  }
  return { renders };
}

function tokensOf(ids: readonly number[], tokenizer: Tokenizer): TurnToken[] {
  const shown = ids.slice(0, MAX_DIFF_TOKENS);
  const pieces = displayPieces(shown, (id) => tokenizer.tokenBytes(id));
  return shown.map((id, k) => ({ id, piece: pieces[k] ?? "" }));
}

/** Compares one turn's recorded prefix with its rendered ids and classifies the turn. */
function classifyTurn(
  render: TurnRender,
  recorded: readonly number[],
  rendered: readonly number[],
  tokenizer: Tokenizer,
  family: FamilyId | undefined,
  promptLength: number,
): TurnCheck {
  const base = {
    turn: render.turn,
    segment: render.segment,
    prefixLength: recorded.length,
    renderedLength: rendered.length,
  };
  if (sameIds(recorded, rendered)) {
    return { ...base, class: "CLEAN", firstDivergenceIndex: undefined, diffs: [] };
  }
  // Tokens before the first divergence are the same on both sides, so both sides have a token
  // boundary at the same byte there: only the rest is aligned (then shifted back).
  const from = firstDivergence(recorded, rendered) ?? 0;
  const tTail = recorded.slice(from);
  const rTail = rendered.slice(from);
  const { bytes: tBytes, offsets: tOff } = bytesAndOffsets(tTail, tokenizer);
  const { bytes: rBytes, offsets: rOff } = bytesAndOffsets(rTail, tokenizer);
  const regions = alignByBytes(tTail, tOff, rTail, rOff, byteEqualRuns(tBytes, rBytes));
  const textChanged = regions.some((a) => a.isLossy);
  const texts = regions.map((a) => ({
    removed: utf8Decode(tBytes, tOff[a.i0] ?? 0, tOff[a.i1] ?? 0),
    inserted: utf8Decode(rBytes, rOff[a.j0] ?? 0, rOff[a.j1] ?? 0),
  }));
  const firstChange = regions.find((a) => a.isLossy);
  const rule = ruleForTurn(
    family,
    textChanged,
    texts,
    firstChange !== undefined && from + firstChange.i0 < promptLength,
  );
  const diffs = regions.slice(0, MAX_DIFFS).map(
    (a): TurnDiff => ({
      t: [from + a.i0, from + a.i1],
      r: [from + a.j0, from + a.j1],
      removed: tokensOf(tTail.slice(a.i0, a.i1), tokenizer),
      inserted: tokensOf(rTail.slice(a.j0, a.j1), tokenizer),
      textChanged: a.isLossy,
    }),
  );
  const sentence = turnRule(rule)?.sentence;
  return {
    ...base,
    class: textChanged ? "FORK" : "REALIGN",
    firstDivergenceIndex: from,
    diffs,
    rule,
    ...(sentence === undefined ? {} : { sentence }),
  };
}

export interface TurnCheckOptions {
  /**
   * The family whose rules explain differences; default: the one the tokenizer's id names (a
   * package folder's path), else the tokenizer's own.
   */
  readonly family?: FamilyId;
}

/**
 * Classifies every planned turn given its rendered ids (`renderedIds[k]` for `plan.renders[k]`),
 * so a test can feed another encoder's ids for the same texts.
 */
export function classifyTurns(
  t: Trajectory,
  plan: TurnPlan,
  renderedIds: readonly (readonly number[])[],
  tokenizer: Tokenizer,
  options: TurnCheckOptions = {},
): TurnReport {
  const family = options.family ?? familyOfName(tokenizer.id)?.id ?? tokenizer.family;
  const ids: number[] = [];
  for (const s of t.segments) for (const id of s.tokenIds) ids.push(id);
  const first = t.segments[0];
  const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
  const turns = plan.renders.map((render, k) =>
    classifyTurn(
      render,
      ids.slice(0, render.prefixLength),
      renderedIds[k] ?? [],
      tokenizer,
      family,
      promptLength,
    ),
  );
  return plan.note === undefined ? { turns } : { turns, note: plan.note };
}

/** True when `t` has something for the per-turn check: an assistant message and a model segment. */
export function hasTurnsToCheck(t: Trajectory): boolean {
  return (
    (t.messages ?? []).some((m) => isAssistantRole(m.role)) &&
    t.segments.some((s) => s.kind === "model")
  );
}

/**
 * What the per-turn check reads of `t`, and nothing more (sent to the tokenizer worker): segment
 * kinds, turns and ids, the messages, and the metadata the template options come from.
 */
export function turnCheckInput(t: Trajectory): Trajectory {
  const { tools, enable_thinking } = t.metadata;
  return {
    id: t.id,
    source: t.source,
    format: t.format,
    status: t.status,
    ...(t.tokenizer === undefined ? {} : { tokenizer: t.tokenizer }),
    segments: t.segments.map((s) => ({
      kind: s.kind,
      turn: s.turn,
      tokenIds: s.tokenIds,
      lossMask: [],
      logprobs: [],
    })),
    ...(t.messages === undefined ? {} : { messages: t.messages }),
    metadata: {
      ...(tools === undefined ? {} : { tools }),
      ...(enable_thinking === undefined ? {} : { enable_thinking }),
    },
  };
}

/**
 * The per-turn prefix check of `t` with `tokenizer` (its template and its encoder). A rendering
 * that spells exactly the recorded prefix's text is `encode(decode(prefix))`, which the round-trip
 * accelerator (roundTripPlan.ts, where the tokenizer's pipeline proves it exact) gives without
 * encoding the whole prefix again; any other rendering is encoded.
 */
export function checkTurnPrefixes(
  t: Trajectory,
  tokenizer: Tokenizer,
  options: TurnCheckOptions & { readonly accelerator?: RoundTripAccelerator | undefined } = {},
): TurnReport {
  const plan = planTurnRenders(t, tokenizer);
  const accelerator = options.accelerator ?? roundTripPlanFor(tokenizer).accelerator;
  const ids: number[] = [];
  for (const s of t.segments) for (const id of s.tokenIds) ids.push(id);
  // The whole record's text, decoded once: a rendering that does not start it is encoded at once
  // (a history rewrite then costs one string comparison, not a decode per turn).
  const whole = accelerator && plan.renders.length > 0 ? tokenizer.decode(ids) : "";
  const rendered = plan.renders.map((r) => {
    if (accelerator && whole.startsWith(r.text)) {
      const prefix = ids.slice(0, r.prefixLength);
      if (tokenizer.decode(prefix) === r.text) return accelerator.roundTrip(prefix);
    }
    return tokenizer.encode(r.text);
  });
  return classifyTurns(t, plan, rendered, tokenizer, options);
}

/** `turnTokenMarks` bits: the recorded token is dropped or changed by the rendering of the turn. */
export const TURN_MARK_REMOVED = 1;
/** The rendering inserts tokens right before this recorded token (or, at the end, after it). */
export const TURN_MARK_INSERTED = 2;

/**
 * Per recorded token (token-index space, `tokenCount` long), what turn `turn`'s differences do to
 * it (TURN_MARK_* bits), for the token view; undefined when the turn is CLEAN or not in `report`.
 */
export function turnTokenMarks(
  report: TurnReport,
  turn: number,
  tokenCount: number,
): Uint8Array | undefined {
  const check = report.turns.find((k) => k.turn === turn);
  if (!check || check.class === "CLEAN") return undefined;
  const marks = new Uint8Array(tokenCount);
  for (const d of check.diffs) {
    const [i0, i1] = d.t;
    for (let i = i0; i < Math.min(i1, tokenCount); i++) {
      marks[i] = (marks[i] ?? 0) | TURN_MARK_REMOVED;
    }
    const at = Math.min(i0, tokenCount - 1);
    if (d.r[1] > d.r[0] && at >= 0) marks[at] = (marks[at] ?? 0) | TURN_MARK_INSERTED;
  }
  return marks;
}

import { laneNameProblem } from "./lanes";
import type { Segment, Trajectory } from "./types";

/** One broken invariant: `field` names the path, `index` the first offending token (trajectory index). */
export interface Violation {
  readonly field: string;
  readonly index?: number;
  readonly message: string;
}

const EXPECTED_MASK = { prompt: 0, model: 1, tool: 0 } as const;

/**
 * Per-token facts a reader already established while building the segments, so the matching
 * per-token rules need not run again (parseLine bench). Claim a fact only when it holds for every
 * segment: the verdict must be the one the full check would give.
 */
export interface ProvenFacts {
  /** Every token id is a non-negative integer (the reader validated the wire array). */
  readonly tokenIds?: boolean;
  /** Every segment's loss mask is its kind's mask on every token (the reader built it so). */
  readonly lossMask?: boolean;
  /** No model segment has a logprob > 0 (the reader scanned them while slicing). */
  readonly modelLogprobs?: boolean;
}

const NOTHING_PROVEN: ProvenFacts = {};

/**
 * Checks a trajectory against the model's invariants and returns every violation (empty = valid).
 * Per-token rules report one violation per segment and rule, at the first offending token index,
 * with the count, so a 100k-token mistake stays readable. A trajectory with no segments is valid
 * (a running episode before its prompt, or a text-only verl record).
 */
export function checkTrajectory(t: Trajectory, proven: ProvenFacts = NOTHING_PROVEN): Violation[] {
  const out: Violation[] = [];
  const first = t.segments[0];
  if (first && first.kind !== "prompt") {
    out.push({ field: "segments[0].kind", message: `first segment is ${first.kind}, not prompt` });
  }
  let start = 0;
  let cutoffs = 0;
  for (let i = 0; i < t.segments.length; i++) {
    const segment = t.segments[i];
    if (!segment) continue;
    checkSegment(segment, i, start, proven, out);
    if (segment.cutoff) cutoffs += 1;
    start += segment.tokenIds.length;
  }
  if (cutoffs > 1) {
    out.push({ field: "segments", message: `${cutoffs} segments are marked cutoff; at most one` });
  }
  checkCalls(t, out);
  checkLanes(t, start, out);
  return out;
}

/** Every lane is as long as the trajectory, holds numbers or null, and has a valid name. */
function checkLanes(t: Trajectory, total: number, out: Violation[]): void {
  for (const [name, values] of Object.entries(t.logprobLanes ?? {})) {
    const field = `logprobLanes.${name}`;
    const problem = laneNameProblem(name);
    if (problem) out.push({ field, message: problem });
    if (values.length !== total) {
      out.push({
        field,
        message: `has ${values.length} entries but the trajectory has ${total} tokens`,
      });
    }
  }
  for (const name of Object.keys(t.logprobLaneInfo ?? {})) {
    if (!t.logprobLanes?.[name]) {
      out.push({
        field: `logprobLaneInfo.${name}`,
        message: "describes a lane the trajectory lacks",
      });
    }
  }
}

/** First offending index and how many offend; undefined when none. */
type BadRun = { at: number; count: number } | undefined;

// One specialized loop per rule, not a generic helper taking a predicate: a shared callback site
// goes megamorphic and this runs over every token of every line read (parseLine bench).
function badTokenIds(ids: readonly number[]): BadRun {
  let at = -1;
  let count = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    if (id !== undefined && (!Number.isInteger(id) || id < 0)) {
      if (at < 0) at = k;
      count += 1;
    }
  }
  return at < 0 ? undefined : { at, count };
}

function badMasks(mask: readonly (0 | 1)[], expected: 0 | 1): BadRun {
  let at = -1;
  let count = 0;
  for (let k = 0; k < mask.length; k++) {
    const m = mask[k];
    if (m !== undefined && m !== expected) {
      if (at < 0) at = k;
      count += 1;
    }
  }
  return at < 0 ? undefined : { at, count };
}

function positiveLogprobs(logprobs: readonly (number | null)[]): BadRun {
  let at = -1;
  let count = 0;
  for (let k = 0; k < logprobs.length; k++) {
    const lp = logprobs[k];
    if (lp !== null && lp !== undefined && lp > 0) {
      if (at < 0) at = k;
      count += 1;
    }
  }
  return at < 0 ? undefined : { at, count };
}

function checkSegment(
  segment: Segment,
  i: number,
  start: number,
  proven: ProvenFacts,
  out: Violation[],
): void {
  const n = segment.tokenIds.length;
  const field = `segments[${i}]`;
  const lengths: [string, number | undefined][] = [
    ["lossMask", segment.lossMask.length],
    ["logprobs", segment.logprobs.length],
    ["topLogprobs", segment.topLogprobs?.length],
    ["keptTokenIds", segment.keptTokenIds?.length],
  ];
  for (const [name, length] of lengths) {
    if (length !== undefined && length !== n) {
      out.push({
        field: `${field}.${name}`,
        message: `${name} has ${length} entries, tokenIds ${n}`,
      });
    }
  }
  const badId = proven.tokenIds ? undefined : badTokenIds(segment.tokenIds);
  if (badId) {
    const value = segment.tokenIds[badId.at];
    out.push({
      field: `${field}.tokenIds`,
      index: start + badId.at,
      message: `token id ${value} is not a non-negative integer (${badId.count} such ids)`,
    });
  }
  // A model segment is the model's output whether trained or not (docs/format.md): mask 1 on
  // every token, or 0 on every token (not trained: Segment.untrained, or a record that says so
  // only by its mask), never mixed.
  const untrainedModel =
    segment.kind === "model" &&
    (segment.untrained === true || (segment.lossMask[0] === 0 && !badMasks(segment.lossMask, 0)));
  const expected = untrainedModel ? 0 : EXPECTED_MASK[segment.kind];
  const badMask = proven.lossMask ? undefined : badMasks(segment.lossMask, expected);
  if (badMask) {
    const or = segment.kind === "model" ? " (or 0 on every token: not trained)" : "";
    out.push({
      field: `${field}.lossMask`,
      index: start + badMask.at,
      message: `${segment.kind} segment must have mask ${expected} on every token${or}; ${badMask.count} differ`,
    });
  }
  if (segment.kind === "model" && !proven.modelLogprobs) {
    const positive = positiveLogprobs(segment.logprobs);
    if (positive) {
      const value = segment.logprobs[positive.at];
      out.push({
        field: `${field}.logprobs`,
        index: start + positive.at,
        message: `logprob ${value} > 0 on a model token (${positive.count} such); a sentinel, not a logprob?`,
      });
    }
  }
  segment.toolCalls?.forEach((call, c) => {
    const [from, to] = call.span;
    const textLength = segment.text?.length ?? Number.POSITIVE_INFINITY;
    if (!(from >= 0 && from <= to && to <= textLength)) {
      out.push({
        field: `${field}.toolCalls[${c}].span`,
        message: `span [${from}, ${to}) is outside the segment text (${segment.text?.length ?? "unknown"} chars)`,
      });
    }
  });
}

function checkCalls(t: Trajectory, out: Violation[]): void {
  if (!t.calls) return;
  // Segment offsets only: flattening would copy every per-token array just to learn lengths.
  const offsets: { start: number; end: number }[] = [];
  let total = 0;
  for (const segment of t.segments) {
    const start = total;
    total += segment.tokenIds.length;
    offsets.push({ start, end: total });
  }
  t.calls.forEach((call, c) => {
    const field = `calls[${c}]`;
    if (call.inputLen + call.outputLen > total) {
      out.push({
        field,
        message: `input_len ${call.inputLen} + output_len ${call.outputLen} exceeds the ${total} tokens`,
      });
      return;
    }
    if (call.outputLen === 0) return;
    const s = offsets.findIndex(
      (o, k) => o.start === call.inputLen && t.segments[k]?.kind === "model",
    );
    const at = offsets[s];
    if (!at) {
      out.push({ field, message: `no model segment starts at input_len ${call.inputLen}` });
    } else if (at.end - at.start !== call.outputLen) {
      out.push({
        field,
        message: `output_len ${call.outputLen} but segments[${s}] has ${at.end - at.start} tokens`,
      });
    }
  });
}

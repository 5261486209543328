import type { Segment, SegmentKind, TokenIndex } from "./types";

/** Brands a plain number as a token index of a whole trajectory (0-based). */
export function tokenIndex(n: number): TokenIndex {
  // The one place a number becomes a TokenIndex; callers pass offsets they computed in token space.
  return n as TokenIndex;
}

/** [start, end) token offsets of one segment inside the whole trajectory. */
export interface SegmentOffsets {
  readonly start: TokenIndex;
  readonly end: TokenIndex;
}

/** strands-sglang `segment_info` entry: `[is_output, length in tokens]`. */
export type SegmentInfo = readonly [boolean, number];

/** The flat, strands-compatible views of a trajectory, all indexed by TokenIndex. */
export interface FlatView {
  readonly tokenIds: number[];
  readonly lossMask: (0 | 1)[];
  readonly logprobs: (number | null)[];
  readonly segmentInfo: SegmentInfo[];
  readonly offsets: SegmentOffsets[];
}

/** Concatenates segments into flat per-token arrays (token index space) plus segment offsets. */
export function flattenSegments(segments: readonly Segment[]): FlatView {
  const tokenIds: number[] = [];
  const lossMask: (0 | 1)[] = [];
  const logprobs: (number | null)[] = [];
  const segmentInfo: SegmentInfo[] = [];
  const offsets: SegmentOffsets[] = [];
  for (const segment of segments) {
    const start = tokenIds.length;
    // push() one by one: spreading 100k-element arrays into push() overflows the call stack.
    for (const id of segment.tokenIds) tokenIds.push(id);
    for (const m of segment.lossMask) lossMask.push(m);
    for (const lp of segment.logprobs) logprobs.push(lp);
    segmentInfo.push([segment.kind === "model", segment.tokenIds.length]);
    offsets.push({ start: tokenIndex(start), end: tokenIndex(tokenIds.length) });
  }
  return { tokenIds, lossMask, logprobs, segmentInfo, offsets };
}

/** Total number of tokens over all segments. */
export function tokenCount(segments: readonly Segment[]): number {
  let n = 0;
  for (const segment of segments) n += segment.tokenIds.length;
  return n;
}

/** A planned segment: its kind and [start, end) token offsets, before the arrays are sliced. */
export interface SegmentSpan {
  readonly kind: SegmentKind;
  readonly start: number;
  readonly end: number;
  /** A model span with mask 0 (Segment.untrained). */
  readonly untrained?: boolean;
}

/**
 * Cuts flat arrays (token index space) into a prompt of `promptLength` tokens, then runs of equal
 * mask: mask 1 -> model, mask 0 -> tool. How slime and atropos rows become segments.
 */
export function spansFromMask(lossMask: readonly (0 | 1)[], promptLength: number): SegmentSpan[] {
  const spans: SegmentSpan[] = [];
  if (promptLength > 0) spans.push({ kind: "prompt", start: 0, end: promptLength });
  let start = promptLength;
  for (let k = promptLength + 1; k <= lossMask.length; k++) {
    if (k === lossMask.length || lossMask[k] !== lossMask[start]) {
      spans.push({ kind: lossMask[start] === 1 ? "model" : "tool", start, end: k });
      start = k;
    }
  }
  return spans;
}

/** Spans from strands `segment_info`: the first non-output segment is the prompt, later ones tools. */
export function spansFromSegmentInfo(info: readonly SegmentInfo[]): SegmentSpan[] {
  const spans: SegmentSpan[] = [];
  let start = 0;
  for (const [isOutput, length] of info) {
    const kind: SegmentKind = isOutput ? "model" : spans.length === 0 ? "prompt" : "tool";
    spans.push({ kind, start, end: start + length });
    start += length;
  }
  return spans;
}

/**
 * Turn of each span: the prompt is turn 0, the k-th model segment is turn k, and a tool segment
 * belongs to the turn of the model segment before it (its tool results).
 */
export function turnsOf(kinds: readonly SegmentKind[]): number[] {
  let modelCount = 0;
  return kinds.map((kind) => {
    if (kind === "model") modelCount += 1;
    return kind === "prompt" ? 0 : modelCount;
  });
}

/** Builds segments by slicing flat arrays (token index space) along `spans`. */
export function sliceSegments(
  flat: {
    readonly tokenIds: readonly number[];
    readonly lossMask: readonly (0 | 1)[];
    readonly logprobs: readonly (number | null)[];
  },
  spans: readonly SegmentSpan[],
): Segment[] {
  const turns = turnsOf(spans.map((s) => s.kind));
  return spans.map((span, i) => ({
    kind: span.kind,
    turn: turns[i] ?? 0,
    tokenIds: flat.tokenIds.slice(span.start, span.end),
    lossMask: flat.lossMask.slice(span.start, span.end),
    logprobs: flat.logprobs.slice(span.start, span.end),
  }));
}

import { type SegmentSpan, turnsOf } from "../trajectory/flatten";
import type { Segment } from "../trajectory/types";

/**
 * Runs of equal mask in `mask[0..)`, as spans in trajectory token space shifted by `offset`:
 * 1 -> model, 0 -> tool. The same runs `spansFromMask` finds after a prompt of `offset` tokens.
 */
export function maskRuns(mask: readonly (0 | 1)[], offset: number): SegmentSpan[] {
  const spans: SegmentSpan[] = [];
  let start = 0;
  for (let k = 1; k <= mask.length; k++) {
    if (k === mask.length || mask[k] !== mask[start]) {
      const kind = mask[start] === 1 ? "model" : "tool";
      spans.push({ kind, start: offset + start, end: offset + k });
      start = k;
    }
  }
  return spans;
}

/**
 * Segments along `spans` (token space) whose loss mask follows their kind (model 1, else 0), as
 * spans cut at mask changes guarantee. `logprobsOf` returns a fresh array per span. Built with
 * whole-array slices and fills: per-token pushes re-box every double logprob (issue 6 bench).
 */
export function segmentsByKind(
  spans: readonly SegmentSpan[],
  tokenIds: readonly number[],
  logprobsOf: (span: SegmentSpan) => (number | null)[],
): Segment[] {
  const turns = turnsOf(spans.map((s) => s.kind));
  return spans.map((span, i) => ({
    kind: span.kind,
    turn: turns[i] ?? 0,
    tokenIds: tokenIds.slice(span.start, span.end),
    lossMask: new Array<0 | 1>(span.end - span.start).fill(span.kind === "model" ? 1 : 0),
    logprobs: logprobsOf(span),
  }));
}

/** `length` nulls: the logprobs of tokens with none recorded. */
export function nulls(length: number): null[] {
  return new Array<null>(length).fill(null);
}

import { type SegmentSpan, turnsOf } from "../trajectory/flatten";
import type { Segment } from "../trajectory/types";

/**
 * Runs of equal mask in `mask[0..)`, as spans in trajectory token space shifted by `offset`:
 * 1 -> model, 0 -> tool. The same runs `spansFromMask` finds after a prompt of `offset` tokens.
 */
export function maskRuns(mask: readonly (0 | 1)[], offset: number): SegmentSpan[] {
  const spans: SegmentSpan[] = [];
  const n = mask.length;
  let k = 0;
  // One tight scan per run, each entry compared once against the run's value: ~40% faster than
  // comparing every entry with the run's first (parseLine bench, slime's fast path runs this first).
  while (k < n) {
    const start = k;
    const value = mask[k];
    k++;
    while (k < n && mask[k] === value) k++;
    spans.push({ kind: value === 1 ? "model" : "tool", start: offset + start, end: offset + k });
  }
  return spans;
}

/**
 * Segments along `spans` (token space) whose loss mask follows their kind (model 1, else 0), as
 * spans cut at mask changes guarantee. `logprobsOf` returns a fresh array per span. Built with
 * whole-array slices and fills: per-token pushes re-box every double logprob (parseLine bench).
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
    lossMask:
      span.kind === "model" && !span.untrained
        ? ones(span.end - span.start)
        : zeros(span.end - span.start),
    logprobs: logprobsOf(span),
    ...(span.untrained ? { untrained: true } : {}),
  }));
}

/*
 * Constant runs are cut from cached packed arrays: slice() copies a block of memory, while
 * `new Array(n).fill(v)` stores element by element into a holey array (~3x slower per token,
 * parseLine bench). Each cache grows to the longest run asked for and is never handed out itself.
 */
let zeroCache: 0[] = [];
let oneCache: 1[] = [];
let nullCache: null[] = [];

function grown<T>(cache: T[], value: T, length: number): T[] {
  if (cache.length >= length) return cache;
  const next = cache.slice();
  const target = Math.max(length, cache.length * 2);
  // push() keeps the elements packed, so later slices copy without hole checks.
  while (next.length < target) next.push(value);
  return next;
}

/** `length` zeros: the loss mask of an untrained run (prompt or tool tokens). */
function zeros(length: number): 0[] {
  zeroCache = grown(zeroCache, 0, length);
  return zeroCache.slice(0, length);
}

/** `length` ones: the loss mask of a trained (model) run. */
function ones(length: number): 1[] {
  oneCache = grown(oneCache, 1, length);
  return oneCache.slice(0, length);
}

/** `length` nulls: the logprobs of tokens with none recorded. */
export function nulls(length: number): null[] {
  nullCache = grown(nullCache, null, length);
  return nullCache.slice(0, length);
}

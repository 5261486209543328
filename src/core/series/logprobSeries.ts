import type { SegmentKind } from "../trajectory/types";

/** One bucket of a downsampled logprob series; positions are token indices. */
export interface LogprobBucket {
  /** Token index at the middle of the bucket (chart x). */
  readonly position: number;
  readonly start: number;
  /** Exclusive end token index. */
  readonly end: number;
  /** [min, max] logprob of recorded trained tokens, undefined when the bucket has none. */
  readonly range: readonly [number, number] | undefined;
  readonly mean: number | undefined;
  /** Token index of the lowest logprob (where a click should land), or `start`. */
  readonly minAt: number;
}

/** A run of consecutive segments of one kind, in token-index space [start, end). */
export interface SegmentBand {
  readonly start: number;
  readonly end: number;
  readonly kind: SegmentKind;
}

/** Min/max/mean per bucket of trained (mask 1) recorded logprobs, at most `maxBuckets` buckets. */
export function downsampleLogprobs(
  logprobs: Float64Array,
  lossMask: Uint8Array,
  maxBuckets: number,
): LogprobBucket[] {
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1) {
    throw new Error(`downsampleLogprobs: maxBuckets must be a positive integer, got ${maxBuckets}`);
  }
  const n = logprobs.length;
  const buckets = Math.min(maxBuckets, n);
  const out: LogprobBucket[] = [];
  for (let b = 0; b < buckets; b++) {
    const start = Math.floor((b * n) / buckets);
    const end = Math.floor(((b + 1) * n) / buckets);
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let sum = 0;
    let count = 0;
    let minAt = start;
    for (let i = start; i < end; i++) {
      const lp = logprobs[i] ?? Number.NaN;
      if (lossMask[i] !== 1 || Number.isNaN(lp)) continue;
      if (lp < min) {
        min = lp;
        minAt = i;
      }
      if (lp > max) max = lp;
      sum += lp;
      count++;
    }
    out.push({
      position: (start + end - 1) / 2,
      start,
      end,
      range: count > 0 ? [min, max] : undefined,
      mean: count > 0 ? sum / count : undefined,
      minAt,
    });
  }
  return out;
}

/** Bands of consecutive same-kind segments, in token-index space (empty segments dropped). */
export function segmentBands(
  segmentStarts: Int32Array,
  kinds: readonly SegmentKind[],
): SegmentBand[] {
  const bands: SegmentBand[] = [];
  kinds.forEach((kind, s) => {
    const start = segmentStarts[s] ?? 0;
    const end = segmentStarts[s + 1] ?? start;
    if (end <= start) return;
    const last = bands[bands.length - 1];
    if (last && last.kind === kind && last.end === start)
      bands[bands.length - 1] = { ...last, end };
    else bands.push({ start, end, kind });
  });
  return bands;
}

/**
 * Where a click on the chart at token position `token` lands: the lowest-logprob token of the
 * bucket under it (where a reader wants to look), or the bucket's first token when it holds none.
 */
export function pickFromBuckets(buckets: readonly LogprobBucket[], token: number): number {
  let lo = 0;
  let hi = buckets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((buckets[mid]?.start ?? 0) <= token) lo = mid;
    else hi = mid - 1;
  }
  const bucket = buckets[lo];
  if (!bucket) return Math.max(0, Math.floor(token));
  return bucket.range ? bucket.minAt : bucket.start;
}

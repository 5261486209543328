import type { Segment } from "../trajectory/types";

/**
 * Start of each token-position bucket (trajectory token index): [0, 1k), [1k, 2k), [2k, 4k), ...
 * doubling, the last one open-ended. Doubling keeps a row's sums to a dozen numbers at any length
 * while still separating early, middle and late context.
 */
export const POSITION_BUCKET_STARTS: readonly number[] = [
  0, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576,
];

/** Per-bucket sum and count of the finite logprobs of trainable tokens (buckets as above). */
export interface PositionSums {
  readonly sums: readonly number[];
  readonly counts: readonly number[];
}

/** Bucket (index into POSITION_BUCKET_STARTS) of a trajectory token index. */
export function positionBucketOf(tokenIndex: number): number {
  let b = 0;
  while (
    b + 1 < POSITION_BUCKET_STARTS.length &&
    tokenIndex >= (POSITION_BUCKET_STARTS[b + 1] ?? 0)
  )
    b++;
  return b;
}

/**
 * Sums the recorded logprobs (nats) of trainable (mask 1) tokens per position bucket, by token
 * index over the whole trajectory. Arrays stop at the last bucket the trajectory reaches.
 */
export function logprobSumsByPosition(segments: readonly Segment[]): PositionSums {
  const sums: number[] = [];
  const counts: number[] = [];
  let start = 0;
  let bucket = 0;
  let nextStart = POSITION_BUCKET_STARTS[1] ?? Number.POSITIVE_INFINITY;
  for (const s of segments) {
    for (let k = 0; k < s.lossMask.length; k++) {
      const at = start + k;
      while (at >= nextStart) {
        bucket += 1;
        nextStart = POSITION_BUCKET_STARTS[bucket + 1] ?? Number.POSITIVE_INFINITY;
      }
      const lp = s.logprobs[k];
      if (s.lossMask[k] !== 1 || typeof lp !== "number" || !Number.isFinite(lp)) continue;
      while (sums.length <= bucket) {
        sums.push(0);
        counts.push(0);
      }
      sums[bucket] = (sums[bucket] ?? 0) + lp;
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
    start += s.tokenIds.length;
  }
  return { sums, counts };
}

/** One bar: mean logprob (nats) of trainable tokens at positions [start, end) over the rows. */
export interface PositionBar {
  readonly start: number;
  /** Exclusive end; Infinity for the last, open-ended bucket. */
  readonly end: number;
  readonly label: string;
  readonly mean: number;
  /** Tokens averaged. */
  readonly tokens: number;
}

function positionLabel(tokens: number): string {
  return tokens >= 1024 ? `${tokens / 1024}k` : String(tokens);
}

/** Mean logprob per position bucket over the rows' sums; buckets with no token are left out. */
export function meanLogprobByPosition(rows: readonly (PositionSums | undefined)[]): PositionBar[] {
  const sums: number[] = [];
  const counts: number[] = [];
  for (const r of rows) {
    if (!r) continue;
    for (let b = 0; b < r.counts.length; b++) {
      sums[b] = (sums[b] ?? 0) + (r.sums[b] ?? 0);
      counts[b] = (counts[b] ?? 0) + (r.counts[b] ?? 0);
    }
  }
  const bars: PositionBar[] = [];
  for (let b = 0; b < counts.length; b++) {
    const tokens = counts[b] ?? 0;
    if (tokens === 0) continue;
    const start = POSITION_BUCKET_STARTS[b] ?? 0;
    const end = POSITION_BUCKET_STARTS[b + 1] ?? Number.POSITIVE_INFINITY;
    const label = `${positionLabel(start)}–${end === Number.POSITIVE_INFINITY ? "" : positionLabel(end)}`;
    bars.push({ start, end, label, mean: (sums[b] ?? 0) / tokens, tokens });
  }
  return bars;
}

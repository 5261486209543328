import { type Correction, isCorrected, isTokenLevel, safeExp } from "./mismatch";
import {
  BIN_OFFSET,
  BIN_SCALE,
  HIST_BINS,
  POSITION_STARTS,
  PROB_BUCKETS,
  probBucketOfLog,
} from "./mismatchCharts";
import type { RowScratch } from "./rowScratch";

/*
 * The per-token loop of a file scan's charts (docs/mismatch.md, "File-wide"): one pass over a
 * row's compared tokens (gathered in a RowScratch) on numbers and typed arrays only, so that it
 * keeps stable type feedback and stays optimized whatever the rows and lanes.
 */

const LN2 = Math.LN2;
const LN5 = Math.log(5);
/** Position bucket starts as doubles for the loop (index b: positionBucketStart(b)). */
const POSITION_STARTS_F64 = Float64Array.from(POSITION_STARTS);

/** Per-bucket counts of one row: count, Σ|δ|, max |δ|, tokens beyond 2×. */
export class BucketScratch {
  readonly count: Float64Array;
  readonly sum: Float64Array;
  readonly max: Float64Array;
  readonly far: Float64Array;
  constructor(size: number) {
    this.count = new Float64Array(size);
    this.sum = new Float64Array(size);
    this.max = new Float64Array(size);
    this.far = new Float64Array(size);
  }
}

/** A row's totals as the loop leaves them. */
export class RowTotals {
  sum = 0;
  sumAbs = 0;
  maxAbs = 0;
  corrected = 0;
  beyond2x = 0;
  beyond5x = 0;
  under = 0;
  over = 0;
  /** How many of `offers` the loop wrote. */
  offers = 0;
  /** The row's first and last position bucket (last −1: no tokens). */
  firstPosition = 0;
  lastPosition = -1;
}

/**
 * What the loop reads and writes besides the histogram: the row's tokens, the probability buckets
 * (loaded from the charts before and stored back after, the same additions in the same order),
 * the row's position buckets, the cut-offs of the sample and the worst tokens with the row
 * positions of the tokens past either and their sample priorities (offered after the loop, in
 * order), and the totals.
 */
export interface ChartLoopScratch {
  readonly rows: RowScratch;
  readonly byProbability: BucketScratch;
  readonly byPosition: BucketScratch;
  readonly offers: Int32Array;
  /** samplePriority of each token in `offers`, as the loop found it (not computed again). */
  readonly offerPriorities: Float64Array;
  readonly totals: RowTotals;
  readonly scatterCut: number;
  readonly worstCut: number;
}

/** Scratch for the position buckets: one per start, enough for any token index. */
export function positionScratch(): BucketScratch {
  return new BucketScratch(POSITION_STARTS.length);
}

/** Scratch for the probability buckets. */
export function probabilityScratch(): BucketScratch {
  return new BucketScratch(PROB_BUCKETS);
}

/**
 * The `n` tokens of `scratch.rows` into the histogram and the scratch: totals into
 * `scratch.totals`, the probability and position buckets into theirs, the row positions of the
 * tokens past a cut-off into `scratch.offers` (their priorities into `offerPriorities`). `rowHash` is the row's half of samplePriority.
 */
export function chartLoop(
  scratch: ChartLoopScratch,
  n: number,
  histogram: number[],
  c: Correction,
  rowHash: number,
): void {
  const scatterCut = scratch.scatterCut;
  const worstCut = scratch.worstCut;
  const tokenLevel = isTokenLevel(c);
  const keepAbove = keptAbove(c);
  const keepBelow = keptBelow(c);
  const { d: ds, y: ys, k: ks } = scratch.rows;
  const { count: pCount, sum: pSum, max: pMax, far: pFar } = scratch.byProbability;
  const positions = scratch.byPosition;
  const starts = POSITION_STARTS_F64;
  const offers = scratch.offers;
  const offerPriorities = scratch.offerPriorities;
  // The histogram's constants as locals: an imported binding is read through its module cell.
  const binScale = BIN_SCALE;
  const binOffset = BIN_OFFSET;
  const bins = HIST_BINS;
  let sum = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let corrected = 0;
  let beyond2x = 0;
  let beyond5x = 0;
  let under = 0;
  let over = 0;
  let offered = 0;
  // The position bucket being filled (−1: none yet), in locals until the position leaves it.
  let pos = -1;
  let firstPos = 0;
  let nextPosition = 0;
  let posCount = 0;
  let posSum = 0;
  let posMax = 0;
  let posFar = 0;
  for (let j = 0; j < n; j++) {
    const d = ds[j] as number;
    const y = ys[j] as number;
    const k = ks[j] as number;
    const abs = Math.abs(d);
    sum += d;
    sumAbs += abs;
    if (abs > maxAbs) maxAbs = abs;
    // The rule decides by r = e^δ; δ well inside the log bounds is kept without an exp.
    if (tokenLevel && !(d > keepAbove && d < keepBelow) && isCorrected(c, safeExp(d))) {
      corrected++;
    }
    const far2 = abs > LN2;
    if (far2) {
      beyond2x++;
      if (abs > LN5) beyond5x++;
    }
    // histogramBin(d) written out; `| 0` is Math.floor on [0, HIST_BINS).
    const binAt = d * binScale + binOffset;
    if (binAt < 0) under++;
    else if (binAt >= bins) over++;
    else {
      const bin = binAt | 0;
      histogram[bin] = (histogram[bin] as number) + 1;
    }
    const pi = probBucketOfLog(y);
    pCount[pi] = (pCount[pi] as number) + 1;
    pSum[pi] = (pSum[pi] as number) + abs;
    if (abs > (pMax[pi] as number)) pMax[pi] = abs;
    if (far2) pFar[pi] = (pFar[pi] as number) + 1;
    if (k >= nextPosition) {
      // Token indices only grow along a row: step up from the bucket just left (the starts
      // increase strictly; the same bucket positionBucket(k) finds, without its log2).
      if (pos >= 0) {
        storePosition(positions, pos, posCount, posSum, posMax, posFar);
        while ((starts[pos + 1] as number) <= k) storePosition(positions, ++pos, 0, 0, 0, 0);
      } else {
        pos = 0;
        while ((starts[pos + 1] as number) <= k) pos++;
        firstPos = pos;
      }
      nextPosition = starts[pos + 1] as number;
      posCount = 0;
      posSum = 0;
      posMax = 0;
      posFar = 0;
    }
    posCount++;
    posSum += abs;
    if (abs > posMax) posMax = abs;
    if (far2) posFar++;
    // samplePriority(row, k), written out: a call returning a uint32 boxes it once past 2^30.
    let h = rowHash ^ Math.imul(k + 0x632be5ab, 0xc2b2ae35);
    h ^= h >>> 16;
    h = Math.imul(h, 0x7feb352d);
    h ^= h >>> 15;
    h = Math.imul(h, 0x846ca68b);
    h ^= h >>> 16;
    const priority = h >>> 0;
    if (priority < scatterCut || abs > worstCut) {
      offers[offered] = j;
      offerPriorities[offered++] = priority;
    }
  }
  if (pos >= 0) storePosition(positions, pos, posCount, posSum, posMax, posFar);
  const t = scratch.totals;
  t.sum = sum;
  t.sumAbs = sumAbs;
  t.maxAbs = maxAbs;
  t.corrected = corrected;
  t.beyond2x = beyond2x;
  t.beyond5x = beyond5x;
  t.under = under;
  t.over = over;
  t.offers = offered;
  t.firstPosition = firstPos;
  t.lastPosition = pos;
}

/*
 * The open interval of δ surely kept by a token rule: (ln lo, ln hi), or below ln cap, shrunk by
 * far more than exp's rounding; δ outside it is decided by the rule itself.
 */
function keptAbove(c: Correction): number {
  return c.kind === "token-trunc" ? Number.NEGATIVE_INFINITY : Math.log(c.lo) + 1e-9;
}
function keptBelow(c: Correction): number {
  return Math.log(c.kind === "token-trunc" ? c.cap : c.hi) - 1e-9;
}

/** Position bucket `p`'s counts in the row, into the row's position scratch. */
function storePosition(
  into: BucketScratch,
  p: number,
  count: number,
  sum: number,
  max: number,
  far: number,
): void {
  into.count[p] = count;
  into.sum[p] = sum;
  into.max[p] = max;
  into.far[p] = far;
}

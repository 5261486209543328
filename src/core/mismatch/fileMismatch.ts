import type { ColumnMapping } from "../formats/columnMapping";
import { readRolloutLineLanes, readRolloutValue } from "../formats/readRolloutLine";
import type { FormatId, WireLaneRow } from "../formats/types";
import { laneValues, SAMPLED_LANE } from "../trajectory/lanes";
import type { LaneValues, Trajectory } from "../trajectory/types";
import {
  type Correction,
  correction,
  isCorrected,
  isTokenLevel,
  type MismatchStats,
  safeExp,
  sequenceWeight,
} from "./mismatch";
import { defaultLanes, trajectoryMismatch } from "./trajectoryMismatch";

/*
 * The file-wide picture of a training–inference mismatch (docs/mismatch.md, "File-wide"): every
 * compared token of every trajectory binned into a histogram of r on a log scale, a bounded sample
 * of (rollout, trainer) probability pairs, |δ| by rollout-probability bucket and by position, and
 * the file's worst tokens. One scan per file (or per byte range of it, merged), used alike by the
 * browser's scan workers and `rollout-lens mismatch --json`. Every part merges exactly, so a file
 * scanned in ranges on N workers gives the charts of one scan: the sample is the K tokens whose
 * hash of (row, token) is smallest, not a random draw.
 */

/** Histogram of log10 r: HIST_BINS bins of HIST_WIDTH from −HIST_SPAN, plus under/overflow. */
export const HIST_SPAN = 1.5;
export const HIST_WIDTH = 0.025;
export const HIST_BINS = Math.round((2 * HIST_SPAN) / HIST_WIDTH);
/** Probability pairs kept for the scatter. */
export const SCATTER_POINTS = 1500;
/** Worst tokens (largest |δ|) kept. */
export const WORST_TOKENS = 50;
/** Rollout-probability buckets: [0, 0.1), [0.1, 0.2), … [0.9, 1]. */
export const PROB_BUCKETS = 10;

const LOG10E = Math.LOG10E;
/** log of each probability bucket's start: log 0.1 … log 0.9 (bucket 0 takes everything below). */
const LOG_PROB_STARTS = Float64Array.from({ length: PROB_BUCKETS }, (_, i) =>
  Math.log(i / PROB_BUCKETS),
);

/** The probability bucket of p = e^y, by the definition: how many of log 0.1 … log 0.9 y reaches. */
export function probBucketExact(y: number): number {
  let pi = 0;
  for (let i = 1; i < PROB_BUCKETS; i++) if (y >= (LOG_PROB_STARTS[i] as number)) pi = i;
  return pi;
}

/*
 * probBucketExact without its search (the search's unpredictable branches were most of the
 * buckets' cost): y in cells of 1/CELLS_PER_UNIT below 0, each cell holding at most one bucket
 * start (they are ≥ 0.1 apart). A cell's tokens are in bucket CELL_BUCKET, or one below when y is
 * under the start CELL_EDGE inside the cell (−∞ when none). The cells are widened by far more than
 * the rounding of −y·CELLS_PER_UNIT, so the table agrees with the definition on every y.
 */
const CELLS_PER_UNIT = 64;
const CELLS = Math.ceil(-(LOG_PROB_STARTS[1] as number) * CELLS_PER_UNIT) + 1;
const CELL_EDGE = new Float64Array(CELLS);
const CELL_BUCKET = new Int32Array(CELLS);
for (let ci = 0; ci < CELLS; ci++) {
  const top = -ci / CELLS_PER_UNIT + 1e-9;
  const bottom = -(ci + 1) / CELLS_PER_UNIT - 1e-9;
  let edge = Number.NEGATIVE_INFINITY;
  for (let i = 1; i < PROB_BUCKETS; i++) {
    const start = LOG_PROB_STARTS[i] as number;
    if (start > bottom && start <= top) edge = start;
  }
  CELL_EDGE[ci] = edge;
  CELL_BUCKET[ci] = probBucketExact(top);
}

/** probBucketExact(y) by the cell table, for a finite y. */
export function probBucketOfLog(y: number): number {
  const cell = -y * CELLS_PER_UNIT;
  if (!(cell > 0)) return PROB_BUCKETS - 1;
  if (cell >= CELLS) return 0;
  const ci = cell | 0;
  const b = CELL_BUCKET[ci] as number;
  return y >= (CELL_EDGE[ci] as number) ? b : b - 1;
}

/**
 * The probability buckets' fields while a row is scanned, loaded from and stored back to the
 * charts' buckets once per row (the same additions in the same order: the sums are unchanged).
 */
const probCount = new Float64Array(PROB_BUCKETS);
const probSum = new Float64Array(PROB_BUCKETS);
const probMax = new Float64Array(PROB_BUCKETS);
const probFar = new Float64Array(PROB_BUCKETS);

/** One trajectory's mismatch in a file scan: what the table's column shows and filters on. */
export interface RowMismatch {
  readonly compared: number;
  readonly maxAbsDelta: number;
  readonly meanAbsDelta: number;
  /** (clipped + masked) / compared under the scan's correction. */
  readonly fractionCorrected: number;
}

/** One token of the file, where it is (row, token index, line) and both lanes' logprobs. */
export interface MismatchToken {
  readonly row: number;
  readonly line: number;
  /** Index of the token in its trajectory (the deep link's `?token=`). */
  readonly token: number;
  readonly tokenId: number;
  /** Lane a (π_train) and lane b (π_rollout) logprobs; δ = a − b. */
  readonly a: number;
  readonly b: number;
  readonly delta: number;
}

/** Tokens whose rollout probability or position falls in [start, end). */
export interface MismatchBucket {
  readonly start: number;
  readonly end: number;
  count: number;
  sumAbsDelta: number;
  maxAbsDelta: number;
  /** Tokens with r > 2 or r < 1/2. */
  beyond2x: number;
}

/** The file-wide charts; mutable while a scan runs, plain JSON when done. */
export interface MismatchCharts {
  compared: number;
  /** Tokens with r > 2 or r < 1/2, and with r > 5 or r < 1/5. */
  beyond2x: number;
  beyond5x: number;
  /** Counts of log10 r by bin (see HIST_*), then the tokens below and above the range. */
  readonly histogram: number[];
  under: number;
  over: number;
  /**
   * Up to SCATTER_POINTS tokens, the same ones whatever the split of the scan. While a scan runs
   * its candidates wait in the scan's pool: complete after finishCharts or mergeCharts.
   */
  scatter: MismatchToken[];
  readonly byProbability: MismatchBucket[];
  /** Buckets of the token index: 0, 1, 2, 3, 4, 5–7, 8–10, 11–15, 16–21, … (half octaves). */
  readonly byPosition: MismatchBucket[];
  /** The WORST_TOKENS tokens of largest |δ|, largest first (ties in file order). */
  worst: MismatchToken[];
  /** Which lanes were compared (a − b), with how many trajectories each pair: the charts' labels. */
  readonly lanePairs: LanePairCount[];
}

/** Lanes a and b of a file scan's trajectories, and how many trajectories compared them. */
export interface LanePairCount {
  readonly a: string;
  readonly b: string;
  rows: number;
}

/** Counts one more trajectory comparing lanes `a` − `b`. */
export function countLanePair(pairs: LanePairCount[], a: string, b: string, rows = 1): void {
  const known = pairs.find((p) => p.a === a && p.b === b);
  if (known) known.rows += rows;
  else pairs.push({ a, b, rows });
}

function bucket(start: number, end: number): MismatchBucket {
  return { start, end, count: 0, sumAbsDelta: 0, maxAbsDelta: 0, beyond2x: 0 };
}

/** Bucket starts up to past any token index (2^40), computed once. */
const POSITION_STARTS = Array.from({ length: 82 }, (_, b) =>
  b < 4 ? b : Math.floor(2 ** (b / 2)),
);

/** Start of position bucket `b`: 0, 1, 2, 3, then half octaves 4, 5, 8, 11, 16, 22, 32, … */
export function positionBucketStart(b: number): number {
  return POSITION_STARTS[b] ?? Math.floor(2 ** (b / 2));
}

/** The position bucket of token index `k`. */
export function positionBucket(k: number): number {
  if (k < 4) return k;
  let b = Math.floor(2 * Math.log2(k));
  // Float rounding at the edges: settle on the bucket whose range holds k.
  while (b > 4 && positionBucketStart(b) > k) b--;
  while (positionBucketStart(b + 1) <= k) b++;
  return b;
}

export function emptyCharts(): MismatchCharts {
  return {
    compared: 0,
    beyond2x: 0,
    beyond5x: 0,
    histogram: new Array(HIST_BINS).fill(0),
    under: 0,
    over: 0,
    scatter: [],
    byProbability: Array.from({ length: PROB_BUCKETS }, (_, i) =>
      bucket(i / PROB_BUCKETS, (i + 1) / PROB_BUCKETS),
    ),
    byPosition: [],
    worst: [],
    lanePairs: [],
  };
}

/** The scatter's order: a hash of (row, token), smallest kept; ties in file order. */
export function samplePriority(row: number, token: number): number {
  let h = Math.imul(row ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(token + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

const byWorst = (x: MismatchToken, y: MismatchToken) =>
  Math.abs(y.delta) - Math.abs(x.delta) || x.row - y.row || x.token - y.token;

/** `list` sorted by `order` and cut to `k` (a bounded top-k, kept sorted). */
function topK(
  list: MismatchToken[],
  k: number,
  order: (x: MismatchToken, y: MismatchToken) => number,
) {
  return list.sort(order).slice(0, k);
}

/** Index bits of a packed sample key: priority · 2^INDEX_BITS + index, exact in a double. */
const INDEX_BITS = 2 ** 20;

/**
 * topK by the sample's order (priority, then row, then token). Each token's priority is computed
 * once and packed with its index into one double, so the sort is a typed array's numeric sort
 * with no comparator; the rare runs of equal priority are put in (row, token) order after.
 */
function topKBySample(list: MismatchToken[], k: number): MismatchToken[] {
  if (list.length >= INDEX_BITS) return topKBySampleSlow(list, k);
  const keys = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const t = list[i] as MismatchToken;
    keys[i] = samplePriority(t.row, t.token) * INDEX_BITS + i;
  }
  keys.sort();
  const n = Math.min(k, keys.length);
  const order: MismatchToken[] = new Array(n);
  for (let i = 0; i < n; ) {
    const key = keys[i] as number;
    const p = Math.floor(key / INDEX_BITS);
    let end = i + 1;
    while (end < keys.length && Math.floor((keys[end] as number) / INDEX_BITS) === p) end++;
    if (end === i + 1) {
      order[i++] = list[key - p * INDEX_BITS] as MismatchToken;
      continue;
    }
    const run: MismatchToken[] = [];
    for (let j = i; j < end; j++)
      run.push(list[(keys[j] as number) - p * INDEX_BITS] as MismatchToken);
    run.sort((x, y) => x.row - y.row || x.token - y.token);
    for (let j = 0; j < run.length && i < n; j++) order[i++] = run[j] as MismatchToken;
  }
  return order;
}

/** topKBySample with a comparator, for lists too long to pack an index beside the priority. */
function topKBySampleSlow(list: MismatchToken[], k: number): MismatchToken[] {
  const keyed = list.map((t) => ({ t, p: samplePriority(t.row, t.token) }));
  keyed.sort((x, y) => x.p - y.p || x.t.row - y.t.row || x.t.token - y.t.token);
  return keyed.slice(0, k).map((e) => e.t);
}

/** Bin position of δ: log10 r in bin widths from −HIST_SPAN, as one multiply-add. */
const BIN_SCALE = LOG10E / HIST_WIDTH;
const BIN_OFFSET = HIST_SPAN / HIST_WIDTH;

/** The histogram bin of δ: 0..HIST_BINS-1, −1 under, HIST_BINS over. */
export function histogramBin(delta: number): number {
  const x = delta * BIN_SCALE + BIN_OFFSET;
  if (x < 0) return -1;
  if (x >= HIST_BINS) return HIST_BINS;
  return Math.floor(x);
}

const LN2 = Math.LN2;
const LN5 = Math.log(5);

/**
 * Lane a and lane b of the row being charted by token index, as doubles (NaN where a lane has no
 * value: null and a missing entry compare alike, as a δ that is not finite does), then its
 * compared tokens in token order: a's and b's logprob, δ = a − b, the token index and the token
 * id. Typed arrays grown to the longest row seen: the loops read plain doubles whatever the
 * element kinds of the arrays the lanes came in (which differ by format, and had made the loop
 * slower on one format after another had run through it).
 */
let laneA = new Float64Array(1024);
let laneB = new Float64Array(1024);
let rowX = new Float64Array(1024);
let rowY = new Float64Array(1024);
let rowD = new Float64Array(1024);
let rowK = new Float64Array(1024);
let rowId = new Float64Array(1024);

/** The row scratch able to hold `n` tokens (its contents are not kept). */
function ensureRowCapacity(n: number): void {
  if (rowX.length >= n) return;
  const size = Math.max(n, rowX.length * 2);
  laneA = new Float64Array(size);
  laneB = new Float64Array(size);
  rowX = new Float64Array(size);
  rowY = new Float64Array(size);
  rowD = new Float64Array(size);
  rowK = new Float64Array(size);
  rowId = new Float64Array(size);
}

/**
 * `length` entries of `values` into `into` from index `at`, null and missing ones as NaN. A loop,
 * not TypedArray.set: set takes a slow path on arrays that hold tagged numbers (a slice of a
 * lane with nulls), and needs a scan for null first.
 */
function copyLane(into: Float64Array, at: number, values: LaneValues, length: number): void {
  for (let i = 0; i < length; i++) into[at + i] = values[i] ?? Number.NaN;
}

/**
 * copyLane for the arrays of a line as JSON.parse made them (FormatAdapter.readLanes): a
 * null-free one holds doubles (or small integers), which TypedArray.set copies in one builtin
 * call. Apart from copyLane so that neither loop sees the other's element kinds: a loop that has
 * read both double and tagged arrays boxes every double it reads (the scan of one format ran
 * ~80% slower after another format's scan).
 */
function copyWireLane(into: Float64Array, values: LaneValues, length: number): void {
  if (values.length === length && !values.includes(null)) {
    into.set(values as readonly number[]);
    return;
  }
  for (let i = 0; i < length; i++) into[i] = values[i] ?? Number.NaN;
}

/** Lane `lane` of `t` (undefined: the segments' sampled logprobs) into `into`, `total` tokens. */
function laneInto(
  into: Float64Array,
  t: Trajectory,
  lane: LaneValues | undefined,
  total: number,
): Float64Array {
  if (lane) {
    copyLane(into, 0, lane, total);
    return into;
  }
  let k = 0;
  for (const seg of t.segments) {
    copyLane(into, k, seg.logprobs, seg.lossMask.length);
    k += seg.lossMask.length;
  }
  return into;
}

/**
 * The trained tokens of `t` where lanes `a` and `b` (undefined: the segments' own sampled
 * logprobs) compare into the row scratch; returns how many. A token compares when its mask is 1
 * and both logprobs are numbers with a finite difference.
 */
function gatherRow(t: Trajectory, a: LaneValues | undefined, b: LaneValues | undefined): number {
  let total = 0;
  for (const seg of t.segments) total += seg.lossMask.length;
  ensureRowCapacity(total);
  if (a && !b) return gatherLaneVsSampled(t, laneInto(laneA, t, a, total));
  const xs = laneInto(laneA, t, a, total);
  const ys = !a && !b ? xs : laneInto(laneB, t, b, total);
  let n = 0;
  let k = 0;
  for (const seg of t.segments) {
    const mask = seg.lossMask;
    const ids = seg.tokenIds;
    for (let i = 0; i < mask.length; i++, k++) {
      if (mask[i] !== 1) continue;
      const x = xs[k] as number;
      const y = ys[k] as number;
      const d = x - y;
      if (!Number.isFinite(d)) continue;
      rowX[n] = x;
      rowY[n] = y;
      rowD[n] = d;
      rowK[n] = k;
      rowId[n] = ids[i] ?? -1;
      n++;
    }
  }
  return n;
}

/**
 * gatherRow's usual case, a lane (copied into `xs`) against the sampled logprobs, read where they
 * are: only trained tokens reach that read, so it sees the model segments' arrays alone (one
 * element kind per format), not the prompt's nulls too, and no copy of the sampled lane is made.
 */
function gatherLaneVsSampled(t: Trajectory, xs: Float64Array): number {
  let n = 0;
  let k = 0;
  for (const seg of t.segments) {
    const mask = seg.lossMask;
    const ids = seg.tokenIds;
    const lps = seg.logprobs;
    for (let i = 0; i < mask.length; i++, k++) {
      if (mask[i] !== 1) continue;
      const y = lps[i];
      if (y === null || y === undefined) continue;
      const x = xs[k] as number;
      const d = x - y;
      if (!Number.isFinite(d)) continue;
      rowX[n] = x;
      rowY[n] = y;
      rowD[n] = d;
      rowK[n] = k;
      rowId[n] = ids[i] ?? -1;
      n++;
    }
  }
  return n;
}

/**
 * gatherRow for a row read straight off the wire (FormatAdapter.readLanes): the same tokens
 * compared, a token trained where its mask is not `untrained`.
 */
function gatherWire(row: WireLaneRow): number {
  const { tokenIds: ids, mask, untrained, a, b } = row;
  const total = mask.length;
  if (!a || !b) return 0;
  ensureRowCapacity(total);
  copyWireLane(laneA, a, total);
  const ys = a === b ? laneA : laneB;
  if (a !== b) copyWireLane(laneB, b, total);
  const xs = laneA;
  let n = 0;
  for (let k = 0; k < total; k++) {
    if (mask[k] === untrained) continue;
    const x = xs[k] as number;
    const y = ys[k] as number;
    const d = x - y;
    if (!Number.isFinite(d)) continue;
    rowX[n] = x;
    rowY[n] = y;
    rowD[n] = d;
    rowK[n] = k;
    rowId[n] = ids[k] ?? -1;
    n++;
  }
  return n;
}

/**
 * One pass over a trajectory's trained tokens comparing lane `a` (π_train) with lane `b`
 * (π_rollout): every compared token goes into `charts`, and the row's summary comes back (the
 * same numbers computeMismatch gives, without its per-token arrays: a file scan keeps only
 * these). `a`/`b` undefined means the segments' own sampled logprobs. `row`, `line`: where the
 * trajectory is in the file.
 */
export function addToCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  a: LaneValues | undefined,
  b: LaneValues | undefined,
  c: Correction,
): RowMismatch {
  return chartRow(charts, gatherRow(t, a, b), row, line, c);
}

/** Position bucket starts as doubles for the loop (index b: positionBucketStart(b)). */
const POSITION_STARTS_F64 = Float64Array.from(POSITION_STARTS);
/** Per position bucket of the row: count, Σ|δ|, max |δ|, beyond 2×, written as the loop leaves it. */
const rowPosCount = new Float64Array(POSITION_STARTS.length);
const rowPosSum = new Float64Array(POSITION_STARTS.length);
const rowPosMax = new Float64Array(POSITION_STARTS.length);
const rowPosFar = new Float64Array(POSITION_STARTS.length);
/** Row positions (index into the row scratch) past a cut-off: offered after the loop, in order. */
let rowOffers = new Int32Array(1024);
/** The loop's totals: see the OUT_* indices. */
const rowOut = new Float64Array(11);
const OUT_SUM = 0;
const OUT_SUM_ABS = 1;
const OUT_MAX_ABS = 2;
const OUT_CORRECTED = 3;
const OUT_BEYOND2X = 4;
const OUT_BEYOND5X = 5;
const OUT_UNDER = 6;
const OUT_OVER = 7;
const OUT_OFFERS = 8;
const OUT_FIRST_POSITION = 9;
const OUT_LAST_POSITION = 10;

/**
 * The `n` tokens in the row scratch (gathered by gatherRow) into `charts`: the row's summary,
 * as addToCharts returns it.
 */
function chartRow(
  charts: MismatchCharts,
  n: number,
  row: number,
  line: number,
  c: Correction,
): RowMismatch {
  const state = scanStateOf(charts);
  if (rowOffers.length < n) rowOffers = new Int32Array(Math.max(n, rowOffers.length * 2));
  loadProbBuckets(charts.byProbability);
  chartLoop(n, charts.histogram, c, Math.imul(row ^ 0x9e3779b9, 0x85ebca6b), state);
  storeProbBuckets(charts.byProbability);
  addPositions(charts.byPosition);
  // Candidates past the cut-offs at the row's start, offered in token order: the cut-offs only
  // tighten as tokens are offered, so each is offered exactly when the loop would have.
  const offers = rowOut[OUT_OFFERS] as number;
  for (let o = 0; o < offers; o++) {
    const j = rowOffers[o] as number;
    const k = rowK[j] as number;
    const d = rowD[j] as number;
    const priority = samplePriority(row, k);
    if (priority < state.scatter) {
      samplePush(
        state,
        priority,
        row,
        line,
        k,
        rowId[j] as number,
        rowX[j] as number,
        rowY[j] as number,
        d,
      );
    }
    if (Math.abs(d) > state.worst) {
      const token = {
        row,
        line,
        token: k,
        tokenId: rowId[j] as number,
        a: rowX[j] as number,
        b: rowY[j] as number,
        delta: d,
      };
      charts.worst.push(token);
      if (charts.worst.length >= 2 * WORST_TOKENS) state.worst = worstLimit(charts);
    }
  }
  charts.compared += n;
  charts.beyond2x += rowOut[OUT_BEYOND2X] as number;
  charts.beyond5x += rowOut[OUT_BEYOND5X] as number;
  charts.under += rowOut[OUT_UNDER] as number;
  charts.over += rowOut[OUT_OVER] as number;
  const sum = rowOut[OUT_SUM] as number;
  let corrected = rowOut[OUT_CORRECTED] as number;
  if (!isTokenLevel(c) && n > 0 && isCorrected(c, sequenceWeight(c, sum, n))) corrected = n;
  return {
    compared: n,
    maxAbsDelta: rowOut[OUT_MAX_ABS] as number,
    meanAbsDelta: n === 0 ? 0 : (rowOut[OUT_SUM_ABS] as number) / n,
    fractionCorrected: n === 0 ? 0 : corrected / n,
  };
}

/**
 * The per-token loop of chartRow, on numbers and typed arrays only (stable type feedback, so it
 * stays optimized whatever the rows and lanes): totals into rowOut, the probability buckets into
 * their scratch, the position buckets into the row's, the tokens past a cut-off into rowOffers.
 */
function chartLoop(
  n: number,
  histogram: number[],
  c: Correction,
  rowHash: number,
  cuts: { readonly scatter: number; readonly worst: number },
): void {
  const scatterCut = cuts.scatter;
  const worstCut = cuts.worst;
  const tokenLevel = isTokenLevel(c);
  // Open interval of δ surely kept by a token rule: [ln lo, ln hi] (or below ln cap), shrunk by
  // far more than exp's rounding; δ outside it is decided by the rule itself.
  const isTrunc = c.kind === "token-trunc";
  const keepBelow = Math.log(isTrunc ? c.cap : c.hi) - 1e-9;
  const keepAbove = isTrunc ? Number.NEGATIVE_INFINITY : Math.log(c.lo) + 1e-9;
  const ds = rowD;
  const ys = rowY;
  const ks = rowK;
  const pCount = probCount;
  const pSum = probSum;
  const pMax = probMax;
  const pFar = probFar;
  const starts = POSITION_STARTS_F64;
  const offers = rowOffers;
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
    const binAt = d * BIN_SCALE + BIN_OFFSET;
    if (binAt < 0) under++;
    else if (binAt >= HIST_BINS) over++;
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
        storePosition(pos, posCount, posSum, posMax, posFar);
        while ((starts[pos + 1] as number) <= k) storePosition(++pos, 0, 0, 0, 0);
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
    if (h >>> 0 < scatterCut || abs > worstCut) offers[offered++] = j;
  }
  if (pos >= 0) storePosition(pos, posCount, posSum, posMax, posFar);
  const out = rowOut;
  out[OUT_SUM] = sum;
  out[OUT_SUM_ABS] = sumAbs;
  out[OUT_MAX_ABS] = maxAbs;
  out[OUT_CORRECTED] = corrected;
  out[OUT_BEYOND2X] = beyond2x;
  out[OUT_BEYOND5X] = beyond5x;
  out[OUT_UNDER] = under;
  out[OUT_OVER] = over;
  out[OUT_OFFERS] = offered;
  out[OUT_FIRST_POSITION] = firstPos;
  out[OUT_LAST_POSITION] = pos;
}

/** Position bucket `p`'s counts in the row, into the row's position scratch. */
function storePosition(p: number, count: number, sum: number, max: number, far: number): void {
  rowPosCount[p] = count;
  rowPosSum[p] = sum;
  rowPosMax[p] = max;
  rowPosFar[p] = far;
}

/** The row's position buckets (rowOut's first to last) added to the charts' buckets. */
function addPositions(byPosition: MismatchBucket[]): void {
  const last = rowOut[OUT_LAST_POSITION] as number;
  while (byPosition.length <= last) {
    const i = byPosition.length;
    byPosition.push(bucket(positionBucketStart(i), positionBucketStart(i + 1)));
  }
  for (let p = rowOut[OUT_FIRST_POSITION] as number; p <= last; p++) {
    addPosition(
      byPosition[p],
      rowPosCount[p] as number,
      rowPosSum[p] as number,
      rowPosMax[p] as number,
      rowPosFar[p] as number,
    );
  }
}

/** The probability buckets' fields into the scratch arrays, at the start of a row. */
function loadProbBuckets(byProbability: readonly MismatchBucket[]): void {
  for (let p = 0; p < PROB_BUCKETS; p++) {
    const pb = byProbability[p] as MismatchBucket;
    probCount[p] = pb.count;
    probSum[p] = pb.sumAbsDelta;
    probMax[p] = pb.maxAbsDelta;
    probFar[p] = pb.beyond2x;
  }
}

/** The scratch arrays back into the buckets, at the end of a row. */
function storeProbBuckets(byProbability: readonly MismatchBucket[]): void {
  for (let p = 0; p < PROB_BUCKETS; p++) {
    const pb = byProbability[p] as MismatchBucket;
    pb.count = probCount[p] as number;
    pb.sumAbsDelta = probSum[p] as number;
    pb.maxAbsDelta = probMax[p] as number;
    pb.beyond2x = probFar[p] as number;
  }
}

/**
 * The counts of a run of tokens in one position bucket added to it. A function of plain values,
 * not a closure: the loop's counters stay in registers rather than in a captured context.
 */
function addPosition(
  b: MismatchBucket | undefined,
  count: number,
  sum: number,
  max: number,
  far: number,
): void {
  if (!b || count === 0) return;
  b.count += count;
  b.sumAbsDelta += sum;
  if (max > b.maxAbsDelta) b.maxAbsDelta = max;
  b.beyond2x += far;
}

/**
 * The sample's candidates while a scan runs, column by column (no object per token: most are
 * dropped again at the next cut), made MismatchTokens into `charts.scatter` by flushSample.
 */
interface SamplePool {
  count: number;
  readonly priority: Float64Array;
  readonly row: Float64Array;
  readonly line: Float64Array;
  readonly token: Float64Array;
  readonly tokenId: Float64Array;
  readonly a: Float64Array;
  readonly b: Float64Array;
  readonly delta: Float64Array;
}

/** Candidates a pool holds before it is cut back to SCATTER_POINTS. */
const POOL_SIZE = 2 * SCATTER_POINTS;

function samplePool(): SamplePool {
  const column = () => new Float64Array(POOL_SIZE);
  return {
    count: 0,
    priority: column(),
    row: column(),
    line: column(),
    token: column(),
    tokenId: column(),
    a: column(),
    b: column(),
    delta: column(),
  };
}

/**
 * A scan's state beside its charts (not part of their JSON): the priority below which a token
 * enters the sample, the |δ| above which it enters the worst tokens, and the sample's pool.
 * Found again (cut-offs from the lists) after a merge or for a copy.
 */
interface ScanState {
  scatter: number;
  worst: number;
  readonly pool: SamplePool;
}
const scanStates = new WeakMap<MismatchCharts, ScanState>();
function scanStateOf(charts: MismatchCharts): ScanState {
  let state = scanStates.get(charts);
  if (!state) {
    state = {
      scatter: charts.scatter.length >= SCATTER_POINTS ? scatterLimit(charts) : Infinity,
      worst: charts.worst.length >= WORST_TOKENS ? worstLimit(charts) : -1,
      pool: samplePool(),
    };
    scanStates.set(charts, state);
  }
  return state;
}

/** A token below the sample's cut-off into its pool; a full pool is cut back, the cut-off lowered. */
function samplePush(
  state: ScanState,
  priority: number,
  row: number,
  line: number,
  token: number,
  tokenId: number,
  a: number,
  b: number,
  delta: number,
): void {
  const pool = state.pool;
  const i = pool.count++;
  pool.priority[i] = priority;
  pool.row[i] = row;
  pool.line[i] = line;
  pool.token[i] = token;
  pool.tokenId[i] = tokenId;
  pool.a[i] = a;
  pool.b[i] = b;
  pool.delta[i] = delta;
  if (pool.count >= POOL_SIZE) state.scatter = cutPool(pool);
}

/**
 * The pool cut to its SCATTER_POINTS first tokens in the sample's order (priority, then row,
 * then token), in place and in no order; returns the priority of the last kept, the new cut-off.
 */
function cutPool(pool: SamplePool): number {
  const n = pool.count;
  const priority = pool.priority;
  const cut = kthSmallest(priority.slice(0, n), SCATTER_POINTS - 1);
  // Ties at the cut-off priority (rare) fill, in (row, token) order, what the smaller ones leave.
  let below = 0;
  let ties = 0;
  for (let i = 0; i < n; i++) {
    const p = priority[i] as number;
    if (p < cut) below++;
    else if (p === cut) ties++;
  }
  let tieKeep: Set<number> | undefined;
  if (ties > SCATTER_POINTS - below) {
    const at: number[] = [];
    for (let i = 0; i < n; i++) if (priority[i] === cut) at.push(i);
    at.sort(
      (x, y) =>
        (pool.row[x] as number) - (pool.row[y] as number) ||
        (pool.token[x] as number) - (pool.token[y] as number),
    );
    tieKeep = new Set(at.slice(0, SCATTER_POINTS - below));
  }
  const columns = [pool.row, pool.line, pool.token, pool.tokenId, pool.a, pool.b, pool.delta];
  let to = 0;
  for (let i = 0; i < n; i++) {
    const p = priority[i] as number;
    if (p > cut || (p === cut && tieKeep && !tieKeep.has(i))) continue;
    if (to !== i) {
      priority[to] = p;
      for (const column of columns) column[to] = column[i] as number;
    }
    to++;
  }
  pool.count = to;
  return cut;
}

/** The pool's tokens into `charts.scatter`, as MismatchTokens; the pool emptied. */
function flushSample(charts: MismatchCharts): void {
  const pool = scanStates.get(charts)?.pool;
  if (!pool) return;
  for (let i = 0; i < pool.count; i++) {
    charts.scatter.push({
      row: pool.row[i] as number,
      line: pool.line[i] as number,
      token: pool.token[i] as number,
      tokenId: pool.tokenId[i] as number,
      a: pool.a[i] as number,
      b: pool.b[i] as number,
      delta: pool.delta[i] as number,
    });
  }
  pool.count = 0;
}

/**
 * `charts.scatter` cut to its SCATTER_POINTS first tokens in the sample's order; returns the
 * priority of the last of them, the cut-off (Infinity while there are fewer).
 */
function scatterLimit(charts: MismatchCharts): number {
  charts.scatter = topKBySample(charts.scatter, SCATTER_POINTS);
  const last = charts.scatter[SCATTER_POINTS - 1];
  return last ? samplePriority(last.row, last.token) : Infinity;
}

/**
 * The `k`-th smallest (0-based) of `a`, which is reordered: a quickselect (Hoare's partition),
 * linear on average, where the sort it replaces was n log n on every cut of the sample.
 */
export function kthSmallest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    // Median of three as the pivot.
    const x = a[lo] as number;
    const y = a[(lo + hi) >> 1] as number;
    const z = a[hi] as number;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const t = a[i] as number;
        a[i] = a[j] as number;
        a[j] = t;
        i++;
        j--;
      }
    }
    // Now a[lo..j] <= pivot <= a[i..hi], and every entry strictly between j and i is the pivot.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k] as number;
  }
  return a[k] as number;
}

function worstLimit(charts: MismatchCharts): number {
  charts.worst = topK(charts.worst, WORST_TOKENS, byWorst);
  const last = charts.worst[WORST_TOKENS - 1];
  return last ? Math.abs(last.delta) : -1;
}

function mergeBuckets(into: MismatchBucket[], from: readonly MismatchBucket[]): void {
  from.forEach((f, i) => {
    const b = into[i] ?? bucket(f.start, f.end);
    into[i] = b;
    b.count += f.count;
    b.sumAbsDelta += f.sumAbsDelta;
    b.maxAbsDelta = Math.max(b.maxAbsDelta, f.maxAbsDelta);
    b.beyond2x += f.beyond2x;
  });
}

/** The charts of two scans as one (of the tokens of both); `into` is changed and returned. */
export function mergeCharts(into: MismatchCharts, from: MismatchCharts): MismatchCharts {
  flushSample(into);
  flushSample(from);
  into.compared += from.compared;
  into.beyond2x += from.beyond2x;
  into.beyond5x += from.beyond5x;
  from.histogram.forEach((c, i) => {
    into.histogram[i] = (into.histogram[i] ?? 0) + c;
  });
  into.under += from.under;
  into.over += from.over;
  mergeBuckets(into.byProbability, from.byProbability);
  mergeBuckets(into.byPosition, from.byPosition);
  into.scatter = topKBySample(into.scatter.concat(from.scatter), SCATTER_POINTS);
  into.worst = topK(into.worst.concat(from.worst), WORST_TOKENS, byWorst);
  for (const p of from.lanePairs) countLanePair(into.lanePairs, p.a, p.b, p.rows);
  scanStates.delete(into);
  return into;
}

/** The charts as they are final: the sample (its pool flushed) and worst tokens sorted and cut. */
export function finishCharts(charts: MismatchCharts): MismatchCharts {
  flushSample(charts);
  charts.scatter = topKBySample(charts.scatter, SCATTER_POINTS);
  charts.worst = topK(charts.worst, WORST_TOKENS, byWorst);
  scanStates.delete(charts);
  return charts;
}

/** What a file scan compares: two lanes (or each trajectory's default) under one correction. */
export interface MismatchScanOptions {
  readonly lanes?: readonly [string, string] | undefined;
  readonly correction?: Correction | undefined;
}

/** A file's mismatch scan so far; `rows` by row index from `firstRow` (undefined: no lanes). */
export interface FileMismatchScan {
  format: FormatId | undefined;
  readonly rows: (RowMismatch | undefined)[];
  lines: number;
  badLines: number;
  charts: MismatchCharts;
}

export function createFileMismatchScan(): FileMismatchScan {
  return { format: undefined, rows: [], lines: 0, badLines: 0, charts: emptyCharts() };
}

/** The row of a trajectory's statistics, as the table shows it. */
export function rowMismatchOf(s: MismatchStats): RowMismatch {
  return {
    compared: s.compared,
    maxAbsDelta: s.maxAbsDelta,
    meanAbsDelta: s.meanAbsDelta,
    fractionCorrected: s.fractionCorrected,
  };
}

/** Lane `name` of `t` for addToCharts: undefined for the sampled logprobs, null when absent. */
function laneFor(t: Trajectory, name: string): LaneValues | undefined | null {
  return name === SAMPLED_LANE ? undefined : (laneValues(t, name) ?? null);
}

/**
 * One trajectory (file row `row`, line `line`) added to `charts`: its row summary, or why it has
 * none (no lane besides sampled, or not the lanes asked for).
 */
export function rowIntoCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  options: MismatchScanOptions,
):
  | { ok: true; lanes: readonly [string, string]; row: RowMismatch }
  | { ok: false; reason: string } {
  const lanes = options.lanes ?? defaultLanes(t);
  if (!lanes) return { ok: false, reason: "no lane besides sampled" };
  const a = laneFor(t, lanes[0]);
  const b = laneFor(t, lanes[1]);
  if (a === null || b === null) {
    const out = trajectoryMismatch(t, lanes, options.correction ?? DEFAULT_CORRECTION);
    return { ok: false, reason: out.ok ? "no such lane" : out.message };
  }
  const c = options.correction ?? DEFAULT_CORRECTION;
  countLanePair(charts.lanePairs, lanes[0], lanes[1]);
  return { ok: true, lanes, row: addToCharts(charts, t, row, line, a, b, c) };
}

const DEFAULT_CORRECTION = correction("token-trunc");

/**
 * rowIntoCharts with the trajectory's full statistics (computeMismatch's), as
 * `rollout-lens mismatch --json` prints them.
 */
export function mismatchIntoCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  options: MismatchScanOptions,
):
  | { ok: true; lanes: readonly [string, string]; stats: MismatchStats }
  | { ok: false; reason: string } {
  const into = rowIntoCharts(charts, t, row, line, options);
  if (!into.ok) return into;
  const out = trajectoryMismatch(t, into.lanes, options.correction ?? DEFAULT_CORRECTION);
  if (!out.ok) return { ok: false, reason: out.message };
  return { ok: true, lanes: into.lanes, stats: out.result.stats };
}

/**
 * Scans one line (1-based `lineNo`, trailing `\r` dropped) into `scan`, its first trajectory at
 * file row `firstRow + scan.rows.length`. Bad and blank lines add no row, as in the file index;
 * with a column `mapping`, each line is read through it, as the index reads it.
 */
export function scanMismatchLine(
  scan: FileMismatchScan,
  text: string,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  path?: string,
  mapping?: ColumnMapping,
): void {
  scan.lines = lineNo;
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  const result = readRolloutLineLanes(clean, lineNo, scan.format, path, options.lanes, mapping);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  if (result.kind === "lanes") {
    const c = options.correction ?? DEFAULT_CORRECTION;
    for (const lanes of result.rows) {
      const row = firstRow + scan.rows.length;
      countLanePair(scan.charts.lanePairs, result.lanes[0], result.lanes[1]);
      scan.rows.push(chartRow(scan.charts, gatherWire(lanes), row, lineNo, c));
    }
    return;
  }
  addTrajectoryRows(scan, result.trajectories, lineNo, firstRow, options);
}

/**
 * scanMismatchLine for a record already parsed: a Parquet row or one document of a JSON file, as
 * core/files/recordIndexer.ts reads them (record r is line r + 1, read through the table's column
 * `mapping` when it has one), so the rows match the table's.
 */
export function scanMismatchRecord(
  scan: FileMismatchScan,
  value: unknown,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  path?: string,
  mapping?: ColumnMapping,
): void {
  scan.lines = lineNo;
  const result = readRolloutValue(value, lineNo, scan.format, path, mapping);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  addTrajectoryRows(scan, result.trajectories, lineNo, firstRow, options);
}

/** A line's trajectories into the scan: one row each (undefined when it has no lanes to compare). */
function addTrajectoryRows(
  scan: FileMismatchScan,
  trajectories: readonly Trajectory[],
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
): void {
  for (const t of trajectories) {
    const row = firstRow + scan.rows.length;
    const out = rowIntoCharts(scan.charts, t, row, lineNo, options);
    scan.rows.push(out.ok ? out.row : undefined);
  }
}

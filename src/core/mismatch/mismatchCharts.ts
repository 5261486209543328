import type { DecompositionCharts, RowDecomposition } from "./decompositionCharts";

/*
 * The file-wide charts of a training–inference mismatch (docs/mismatch.md, "File-wide"): their
 * shape, bins and buckets. Every compared token of every trajectory is binned into a histogram of
 * r on a log scale and |δ| by rollout-probability bucket and by position; a bounded sample of
 * (rollout, trainer) probability pairs and the file's worst tokens are kept beside them
 * (chartSample.ts). Scans fill the charts through chartScan.ts, row by row.
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

/** One trajectory's mismatch in a file scan: what the table's column shows and filters on. */
export interface RowMismatch {
  readonly compared: number;
  readonly maxAbsDelta: number;
  readonly meanAbsDelta: number;
  /** (clipped + masked) / compared under the scan's correction. */
  readonly fractionCorrected: number;
  /** Where the row's mismatch comes from (decomposition.ts): its verdict and mean |terms|. */
  readonly decomposition?: RowDecomposition;
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
  /** The decomposition file-wide (decompositionCharts.ts), from the first row compared on. */
  decomposition?: DecompositionCharts;
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

/** A bucket of [start, end) with no tokens yet. */
export function emptyBucket(start: number, end: number): MismatchBucket {
  return { start, end, count: 0, sumAbsDelta: 0, maxAbsDelta: 0, beyond2x: 0 };
}

/** Bucket starts up to past any token index (2^40), computed once. */
export const POSITION_STARTS: readonly number[] = Array.from({ length: 82 }, (_, b) =>
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

/** The charts of no tokens: where every scan starts. */
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
      emptyBucket(i / PROB_BUCKETS, (i + 1) / PROB_BUCKETS),
    ),
    byPosition: [],
    worst: [],
    lanePairs: [],
  };
}

/** Bin position of δ: log10 r in bin widths from −HIST_SPAN, as one multiply-add. */
export const BIN_SCALE = LOG10E / HIST_WIDTH;
export const BIN_OFFSET = HIST_SPAN / HIST_WIDTH;

/** The histogram bin of δ: 0..HIST_BINS-1, −1 under, HIST_BINS over. */
export function histogramBin(delta: number): number {
  const x = delta * BIN_SCALE + BIN_OFFSET;
  if (x < 0) return -1;
  if (x >= HIST_BINS) return HIST_BINS;
  return Math.floor(x);
}

import { readRolloutLine } from "../formats/readRolloutLine";
import type { FormatId } from "../formats/types";
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
/** log 0.9: most tokens are confident and land in the top bucket with this one comparison. */
const LOG_TOP_START = LOG_PROB_STARTS[PROB_BUCKETS - 1] as number;
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
  /** Up to SCATTER_POINTS tokens, the same ones whatever the split of the scan. */
  scatter: MismatchToken[];
  readonly byProbability: MismatchBucket[];
  /** Buckets of the token index: 0, 1, 2, 3, 4, 5–7, 8–10, 11–15, 16–21, … (half octaves). */
  readonly byPosition: MismatchBucket[];
  /** The WORST_TOKENS tokens of largest |δ|, largest first (ties in file order). */
  worst: MismatchToken[];
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
  const { histogram, byProbability, byPosition } = charts;
  // Candidates past the current cut-offs are appended; sorted and cut when there are twice enough.
  const cuts = cutsOf(charts);
  let scatterCut = cuts.scatter;
  let worstCut = cuts.worst;
  // The position bucket being filled, in locals, added to its bucket when the position leaves it.
  let nextPosition = 0;
  let posIndex = 0;
  let posBucket: MismatchBucket | undefined;
  let posCount = 0;
  let posSum = 0;
  let posMax = 0;
  let posFar = 0;
  const tokenLevel = isTokenLevel(c);
  const rowHash = Math.imul(row ^ 0x9e3779b9, 0x85ebca6b);
  // Open interval of δ surely kept by a token rule: [ln lo, ln hi] (or below ln cap), shrunk by
  // far more than exp's rounding; δ outside it is decided by the rule itself.
  const isTrunc = c.kind === "token-trunc";
  const keepBelow = Math.log(isTrunc ? c.cap : c.hi) - 1e-9;
  const keepAbove = isTrunc ? Number.NEGATIVE_INFINITY : Math.log(c.lo) + 1e-9;
  // Counters in locals, written back once: the loop stays free of stores to `charts`.
  let compared = 0;
  let sum = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let corrected = 0;
  let beyond2x = 0;
  let beyond5x = 0;
  let under = 0;
  let over = 0;
  let k = 0;
  loadProbBuckets(byProbability);
  let topCount = probCount[PROB_BUCKETS - 1] as number;
  let topSum = probSum[PROB_BUCKETS - 1] as number;
  let topMax = probMax[PROB_BUCKETS - 1] as number;
  let topFar = probFar[PROB_BUCKETS - 1] as number;
  for (const seg of t.segments) {
    const mask = seg.lossMask;
    const lps = seg.logprobs;
    const ids = seg.tokenIds;
    for (let i = 0; i < mask.length; i++, k++) {
      if (mask[i] !== 1) continue;
      const x = a ? a[k] : lps[i];
      const y = b ? b[k] : lps[i];
      if (x === null || y === null || x === undefined || y === undefined) continue;
      const d = x - y;
      if (!Number.isFinite(d)) continue;
      const abs = d < 0 ? -d : d;
      compared++;
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
      // The bucket of p = e^y without an exp: the last log threshold y reaches (most tokens are
      // confident, so the search starts at the top).
      // The top bucket (p >= 0.9, most tokens) is kept in locals.
      if (y >= LOG_TOP_START) {
        topCount++;
        topSum += abs;
        if (abs > topMax) topMax = abs;
        if (far2) topFar++;
      } else {
        let pi = PROB_BUCKETS - 2;
        while (pi > 0 && y < (LOG_PROB_STARTS[pi] as number)) pi--;
        probCount[pi] = (probCount[pi] as number) + 1;
        probSum[pi] = (probSum[pi] as number) + abs;
        if (abs > (probMax[pi] as number)) probMax[pi] = abs;
        if (far2) probFar[pi] = (probFar[pi] as number) + 1;
      }
      if (k >= nextPosition) {
        addPosition(posBucket, posCount, posSum, posMax, posFar);
        posCount = 0;
        posSum = 0;
        posMax = 0;
        posFar = 0;
        // Token indices only grow along a row: step up from the bucket just left (the starts
        // increase strictly; the same bucket positionBucket(k) finds, without its log2).
        let p = posIndex;
        while (positionBucketStart(p + 1) <= k) p++;
        posIndex = p;
        while (byPosition.length <= p) {
          const j = byPosition.length;
          byPosition.push(bucket(positionBucketStart(j), positionBucketStart(j + 1)));
        }
        posBucket = byPosition[p] as MismatchBucket;
        nextPosition = posBucket.end;
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
        offer(charts, cuts, { row, line, token: k, tokenId: ids[i] ?? -1, a: x, b: y, delta: d });
        scatterCut = cuts.scatter;
        worstCut = cuts.worst;
      }
    }
  }
  addPosition(posBucket, posCount, posSum, posMax, posFar);
  storeProbBuckets(byProbability, topCount, topSum, topMax, topFar);
  charts.compared += compared;
  charts.beyond2x += beyond2x;
  charts.beyond5x += beyond5x;
  charts.under += under;
  charts.over += over;
  if (!tokenLevel && compared > 0 && isCorrected(c, sequenceWeight(c, sum, compared))) {
    corrected = compared;
  }
  return {
    compared,
    maxAbsDelta: maxAbs,
    meanAbsDelta: compared === 0 ? 0 : sumAbs / compared,
    fractionCorrected: compared === 0 ? 0 : corrected / compared,
  };
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

/** The scratch arrays (and the top bucket's locals) back into the buckets, at the end of a row. */
function storeProbBuckets(
  byProbability: readonly MismatchBucket[],
  topCount: number,
  topSum: number,
  topMax: number,
  topFar: number,
): void {
  probCount[PROB_BUCKETS - 1] = topCount;
  probSum[PROB_BUCKETS - 1] = topSum;
  probMax[PROB_BUCKETS - 1] = topMax;
  probFar[PROB_BUCKETS - 1] = topFar;
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

/** A token past a cut-off into the sample and/or the worst tokens (off the hot loop). */
function offer(
  charts: MismatchCharts,
  cuts: { scatter: number; worst: number },
  token: MismatchToken,
): void {
  if (samplePriority(token.row, token.token) < cuts.scatter) {
    charts.scatter.push(token);
    if (charts.scatter.length >= 2 * SCATTER_POINTS) cuts.scatter = scatterLimit(charts);
  }
  if (Math.abs(token.delta) > cuts.worst) {
    charts.worst.push(token);
    if (charts.worst.length >= 2 * WORST_TOKENS) cuts.worst = worstLimit(charts);
  }
}

/**
 * The priority below which a token enters the sample and the |δ| above which it enters the worst
 * tokens, per charts object (not part of its JSON); found again after a merge or a copy.
 */
const cutOffs = new WeakMap<MismatchCharts, { scatter: number; worst: number }>();
function cutsOf(charts: MismatchCharts): { scatter: number; worst: number } {
  let cuts = cutOffs.get(charts);
  if (!cuts) {
    cuts = {
      scatter: charts.scatter.length >= SCATTER_POINTS ? scatterLimit(charts) : Infinity,
      worst: charts.worst.length >= WORST_TOKENS ? worstLimit(charts) : -1,
    };
    cutOffs.set(charts, cuts);
  }
  return cuts;
}

function scatterLimit(charts: MismatchCharts): number {
  charts.scatter = topKBySample(charts.scatter, SCATTER_POINTS);
  const last = charts.scatter[SCATTER_POINTS - 1];
  return last ? samplePriority(last.row, last.token) : Infinity;
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
  cutOffs.delete(into);
  return into;
}

/** The charts as they are final: the sample and worst tokens sorted and cut. */
export function finishCharts(charts: MismatchCharts): MismatchCharts {
  charts.scatter = topKBySample(charts.scatter, SCATTER_POINTS);
  charts.worst = topK(charts.worst, WORST_TOKENS, byWorst);
  cutOffs.delete(charts);
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
 * file row `firstRow + scan.rows.length`. Bad and blank lines add no row, as in the file index.
 */
export function scanMismatchLine(
  scan: FileMismatchScan,
  text: string,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  path?: string,
): void {
  scan.lines = lineNo;
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  const result = readRolloutLine(clean, lineNo, scan.format, path);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  for (const t of result.trajectories) {
    const row = firstRow + scan.rows.length;
    const out = rowIntoCharts(scan.charts, t, row, lineNo, options);
    scan.rows.push(out.ok ? out.row : undefined);
  }
}

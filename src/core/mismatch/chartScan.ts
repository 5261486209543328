import {
  type BucketScratch,
  type ChartLoopScratch,
  chartLoop,
  positionScratch,
  probabilityScratch,
  RowTotals,
} from "./chartLoop";
import { SamplePool, samplePriority, topKBySample, topWorst } from "./chartSample";
import { emptyDecompositionCharts, mergeDecompositionCharts } from "./decompositionCharts";
import { type Correction, isCorrected, isTokenLevel, sequenceWeight } from "./mismatch";
import {
  countLanePair,
  emptyBucket,
  type MismatchBucket,
  type MismatchCharts,
  type MismatchToken,
  PROB_BUCKETS,
  positionBucketStart,
  type RowMismatch,
  SCATTER_POINTS,
  WORST_TOKENS,
} from "./mismatchCharts";
import { RowScratch } from "./rowScratch";

/*
 * A file scan's charts filled row by row (docs/mismatch.md, "File-wide"), and charts of scans
 * merged. Every part merges exactly, so a file scanned in ranges on N workers gives the charts of
 * one scan.
 */

/**
 * What a scan keeps beside its charts (not part of their JSON): the row scratch of the loop, the
 * priority below which a token enters the sample and the |δ| above which it enters the worst
 * tokens, and the sample's pool of candidates. Made on the first row charted, or after a merge
 * (cut-offs found again from the lists).
 */
class ChartScan implements ChartLoopScratch {
  readonly rows = new RowScratch();
  readonly byProbability = probabilityScratch();
  readonly byPosition = positionScratch();
  offers = new Int32Array(1024);
  offerPriorities = new Float64Array(1024);
  readonly totals = new RowTotals();
  readonly pool = new SamplePool();
  scatterCut: number;
  worstCut: number;

  constructor(charts: MismatchCharts) {
    this.scatterCut = charts.scatter.length >= SCATTER_POINTS ? scatterLimit(charts) : Infinity;
    this.worstCut = charts.worst.length >= WORST_TOKENS ? worstLimit(charts) : -1;
  }
}

/** Where charts hold their scan: a property that JSON, structured clone and toEqual all skip. */
const SCAN = Symbol("mismatch chart scan");
type ScannedCharts = MismatchCharts & { [SCAN]?: ChartScan };

/** The scan of `charts`, made on first use. */
function scanOf(charts: ScannedCharts): ChartScan {
  const known = charts[SCAN];
  if (known) return known;
  const scan = new ChartScan(charts);
  Object.defineProperty(charts, SCAN, { value: scan, configurable: true, enumerable: false });
  return scan;
}

/** The row scratch of `charts`' scan, for gatherRow and gatherWire. */
export function rowScratchOf(charts: MismatchCharts): RowScratch {
  return scanOf(charts).rows;
}

/**
 * The `n` tokens gathered in `rowScratchOf(charts)` (by gatherRow or gatherWire) into `charts`,
 * as file row `row` of line `line` under correction `c`: the row's summary.
 */
export function chartRow(
  charts: MismatchCharts,
  n: number,
  row: number,
  line: number,
  c: Correction,
): RowMismatch {
  const scan = scanOf(charts);
  if (scan.offers.length < n) {
    const size = Math.max(n, scan.offers.length * 2);
    scan.offers = new Int32Array(size);
    scan.offerPriorities = new Float64Array(size);
  }
  loadProbBuckets(scan.byProbability, charts.byProbability);
  chartLoop(scan, n, charts.histogram, c, Math.imul(row ^ 0x9e3779b9, 0x85ebca6b));
  storeProbBuckets(scan.byProbability, charts.byProbability);
  const t = scan.totals;
  addPositions(charts.byPosition, scan.byPosition, t.firstPosition, t.lastPosition);
  offerTokens(charts, scan, row, line);
  charts.compared += n;
  charts.beyond2x += t.beyond2x;
  charts.beyond5x += t.beyond5x;
  charts.under += t.under;
  charts.over += t.over;
  let corrected = t.corrected;
  if (!isTokenLevel(c) && n > 0 && isCorrected(c, sequenceWeight(c, t.sum, n))) corrected = n;
  return {
    compared: n,
    maxAbsDelta: t.maxAbs,
    meanAbsDelta: n === 0 ? 0 : t.sumAbs / n,
    fractionCorrected: n === 0 ? 0 : corrected / n,
  };
}

/**
 * The row's tokens past the cut-offs at its start, offered to the sample and the worst tokens in
 * token order (each with the priority the loop hashed): the cut-offs only tighten as tokens are
 * offered, so each is offered exactly when the loop would have. Each list is offered to by its own
 * loop, which stops where the list must be cut; the cut is made here, and the loop goes on.
 */
function offerTokens(charts: MismatchCharts, scan: ChartScan, row: number, line: number): void {
  const count = scan.totals.offers;
  for (let o = 0; o < count; ) {
    o = offerSample(scan, row, line, o, count);
    if (scan.pool.isFull()) scan.scatterCut = scan.pool.cut();
  }
  for (let o = 0; o < count; ) {
    o = offerWorst(charts.worst, scan, row, line, o, count);
    if (charts.worst.length >= 2 * WORST_TOKENS) scan.worstCut = worstLimit(charts);
  }
}

/** Offers `from` to `count` into the sample's pool until it is full; returns where it stopped. */
function offerSample(
  scan: ChartScan,
  row: number,
  line: number,
  from: number,
  count: number,
): number {
  const { x, y, d, k, id } = scan.rows;
  const { offers, offerPriorities, pool } = scan;
  const cut = scan.scatterCut;
  for (let o = from; o < count; o++) {
    const priority = offerPriorities[o] as number;
    if (priority >= cut) continue;
    const j = offers[o] as number;
    const a = x[j] as number;
    const b = y[j] as number;
    if (pool.push(priority, row, line, k[j] as number, id[j] as number, a, b, d[j] as number)) {
      return o + 1;
    }
  }
  return count;
}

/** Offers `from` to `count` onto the worst tokens until they must be cut; returns where it stopped. */
function offerWorst(
  worst: MismatchToken[],
  scan: ChartScan,
  row: number,
  line: number,
  from: number,
  count: number,
): number {
  const { x, y, d, k, id } = scan.rows;
  const offers = scan.offers;
  const cut = scan.worstCut;
  for (let o = from; o < count; o++) {
    const j = offers[o] as number;
    const delta = d[j] as number;
    if (!(Math.abs(delta) > cut)) continue;
    const token = k[j] as number;
    const tokenId = id[j] as number;
    worst.push({ row, line, token, tokenId, a: x[j] as number, b: y[j] as number, delta });
    if (worst.length >= 2 * WORST_TOKENS) return o + 1;
  }
  return count;
}

/** The row's position buckets `first` to `last` (from `row`) added to the charts' buckets. */
function addPositions(
  byPosition: MismatchBucket[],
  row: BucketScratch,
  first: number,
  last: number,
): void {
  while (byPosition.length <= last) {
    const i = byPosition.length;
    byPosition.push(emptyBucket(positionBucketStart(i), positionBucketStart(i + 1)));
  }
  for (let p = first; p <= last; p++) {
    const b = byPosition[p];
    const count = row.count[p] as number;
    if (!b || count === 0) continue;
    b.count += count;
    b.sumAbsDelta += row.sum[p] as number;
    const max = row.max[p] as number;
    if (max > b.maxAbsDelta) b.maxAbsDelta = max;
    b.beyond2x += row.far[p] as number;
  }
}

/** The probability buckets' fields into the scratch, at the start of a row. */
function loadProbBuckets(into: BucketScratch, byProbability: readonly MismatchBucket[]): void {
  for (let p = 0; p < PROB_BUCKETS; p++) {
    const pb = byProbability[p];
    into.count[p] = pb?.count ?? 0;
    into.sum[p] = pb?.sumAbsDelta ?? 0;
    into.max[p] = pb?.maxAbsDelta ?? 0;
    into.far[p] = pb?.beyond2x ?? 0;
  }
}

/** The scratch back into the probability buckets, at the end of a row. */
function storeProbBuckets(from: BucketScratch, byProbability: readonly MismatchBucket[]): void {
  for (let p = 0; p < byProbability.length; p++) {
    const pb = byProbability[p] as MismatchBucket;
    pb.count = from.count[p] as number;
    pb.sumAbsDelta = from.sum[p] as number;
    pb.maxAbsDelta = from.max[p] as number;
    pb.beyond2x = from.far[p] as number;
  }
}

/** The pool of `charts`' scan into `charts.scatter` (the cut-offs stay valid). */
function flushSample(charts: ScannedCharts): void {
  charts[SCAN]?.pool.drainInto(charts.scatter);
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

/** `charts.worst` cut to its WORST_TOKENS; returns the |δ| of the last of them (−1: fewer). */
function worstLimit(charts: MismatchCharts): number {
  charts.worst = topWorst(charts.worst);
  const last = charts.worst[WORST_TOKENS - 1];
  return last ? Math.abs(last.delta) : -1;
}

function mergeBuckets(into: MismatchBucket[], from: readonly MismatchBucket[]): void {
  from.forEach((f, i) => {
    const b = into[i] ?? emptyBucket(f.start, f.end);
    into[i] = b;
    b.count += f.count;
    b.sumAbsDelta += f.sumAbsDelta;
    b.maxAbsDelta = Math.max(b.maxAbsDelta, f.maxAbsDelta);
    b.beyond2x += f.beyond2x;
  });
}

/** The charts of two scans as one (of the tokens of both); `into` is changed and returned. */
export function mergeCharts(into: ScannedCharts, from: MismatchCharts): MismatchCharts {
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
  into.worst = topWorst(into.worst.concat(from.worst));
  for (const p of from.lanePairs) countLanePair(into.lanePairs, p.a, p.b, p.rows);
  if (from.decomposition) {
    into.decomposition ??= emptyDecompositionCharts();
    mergeDecompositionCharts(into.decomposition, from.decomposition);
  }
  delete into[SCAN];
  return into;
}

/** The charts as they are final: the sample (its pool flushed) and worst tokens sorted and cut. */
export function finishCharts(charts: ScannedCharts): MismatchCharts {
  flushSample(charts);
  charts.scatter = topKBySample(charts.scatter, SCATTER_POINTS);
  charts.worst = topWorst(charts.worst);
  delete charts[SCAN];
  return charts;
}

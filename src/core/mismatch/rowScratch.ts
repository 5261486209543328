import type { WireLaneRow } from "../formats/types";
import type { LaneValues, Trajectory } from "../trajectory/types";
import type { ComparedTokens } from "./mismatch";

/*
 * A row's compared tokens gathered for the chart loop (chartLoop.ts): lanes a and b of the
 * trajectory by token index, then its compared tokens in token order. The numbers are copied into
 * typed arrays so that the loop reads plain doubles whatever the element kinds of the arrays the
 * lanes came in (which differ by format, and had made the loop slower on one format after another
 * had run through it).
 */

/**
 * One scan's row scratch, grown to the longest row it has seen. `laneA`, `laneB`: lanes a and b by
 * token index (NaN where a lane has no value: null and a missing entry compare alike, as a δ that
 * is not finite does). `x`, `y`, `d`, `k`, `id`: the compared tokens' a and b logprob, δ = a − b,
 * token index and token id; `w`, `v` their corrected weight and verdict when comparedStats has
 * run on them (mismatch.ts). `trained`: the mask-1 tokens of the row gathered last.
 */
export class RowScratch implements ComparedTokens {
  laneA = new Float64Array(1024);
  laneB = new Float64Array(1024);
  x = new Float64Array(1024);
  y = new Float64Array(1024);
  d = new Float64Array(1024);
  k = new Float64Array(1024);
  id = new Float64Array(1024);
  w = new Float64Array(1024);
  v = new Uint8Array(1024);
  trained = 0;

  /** Room for `n` tokens (the contents are not kept). */
  ensureCapacity(n: number): void {
    if (this.x.length >= n) return;
    const size = Math.max(n, this.x.length * 2);
    this.laneA = new Float64Array(size);
    this.laneB = new Float64Array(size);
    this.x = new Float64Array(size);
    this.y = new Float64Array(size);
    this.d = new Float64Array(size);
    this.k = new Float64Array(size);
    this.id = new Float64Array(size);
    this.w = new Float64Array(size);
    this.v = new Uint8Array(size);
  }
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
 * logprobs) compare into `s`; returns how many. A token compares when its mask is 1
 * and both logprobs are numbers with a finite difference.
 */
export function gatherRow(
  s: RowScratch,
  t: Trajectory,
  a: LaneValues | undefined,
  b: LaneValues | undefined,
): number {
  let total = 0;
  for (const seg of t.segments) total += seg.lossMask.length;
  s.ensureCapacity(total);
  if (a && !b) return gatherLaneVsSampled(s, t, laneInto(s.laneA, t, a, total));
  const xs = laneInto(s.laneA, t, a, total);
  const ys = !a && !b ? xs : laneInto(s.laneB, t, b, total);
  const { x: rowX, y: rowY, d: rowD, k: rowK, id: rowId } = s;
  let n = 0;
  let k = 0;
  let trained = 0;
  for (const seg of t.segments) {
    const mask = seg.lossMask;
    const ids = seg.tokenIds;
    for (let i = 0; i < mask.length; i++, k++) {
      if (mask[i] !== 1) continue;
      trained++;
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
  s.trained = trained;
  return n;
}

/**
 * gatherRow's usual case, a lane (copied into `xs`) against the sampled logprobs, read where they
 * are: only trained tokens reach that read, so it sees the model segments' arrays alone (one
 * element kind per format), not the prompt's nulls too, and no copy of the sampled lane is made.
 */
function gatherLaneVsSampled(s: RowScratch, t: Trajectory, xs: Float64Array): number {
  const { x: rowX, y: rowY, d: rowD, k: rowK, id: rowId } = s;
  let n = 0;
  let trained = 0;
  let k = 0;
  for (const seg of t.segments) {
    const mask = seg.lossMask;
    const ids = seg.tokenIds;
    const lps = seg.logprobs;
    for (let i = 0; i < mask.length; i++, k++) {
      if (mask[i] !== 1) continue;
      trained++;
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
  s.trained = trained;
  return n;
}

/**
 * gatherRow for a row read straight off the wire (FormatAdapter.readLanes): the same tokens
 * compared, a token trained where its mask is not `untrained`.
 */
export function gatherWire(s: RowScratch, row: WireLaneRow): number {
  const { tokenIds: ids, mask, untrained, a, b } = row;
  const total = mask.length;
  s.trained = 0;
  if (!a || !b) return 0;
  s.ensureCapacity(total);
  const { laneA, laneB, x: rowX, y: rowY, d: rowD, k: rowK, id: rowId } = s;
  copyWireLane(laneA, a, total);
  const ys = a === b ? laneA : laneB;
  if (a !== b) copyWireLane(laneB, b, total);
  const xs = laneA;
  let n = 0;
  let trained = 0;
  for (let k = 0; k < total; k++) {
    if (mask[k] === untrained) continue;
    trained++;
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
  s.trained = trained;
  return n;
}

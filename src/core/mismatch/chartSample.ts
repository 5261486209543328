import { type MismatchToken, SCATTER_POINTS, WORST_TOKENS } from "./mismatchCharts";

/*
 * The charts' two bounded lists of tokens (docs/mismatch.md, "File-wide"): the scatter's sample,
 * the SCATTER_POINTS tokens whose hash of (row, token) is smallest (not a random draw, so a file
 * scanned in ranges on N workers keeps the tokens of one scan), and the WORST_TOKENS of largest
 * |δ|. While a scan runs, the sample's candidates wait in a SamplePool.
 */

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

/** The worst tokens' order: largest |δ| first, ties in file order. */
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
export function topKBySample(list: MismatchToken[], k: number): MismatchToken[] {
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

/** `list` cut to its WORST_TOKENS tokens of largest |δ|, largest first. */
export function topWorst(list: MismatchToken[]): MismatchToken[] {
  return topK(list, WORST_TOKENS, byWorst);
}

/** Candidates a pool holds before it is cut back to SCATTER_POINTS. */
const POOL_SIZE = 2 * SCATTER_POINTS;

/**
 * The sample's candidates while a scan runs, column by column (no object per token: most are
 * dropped again at the next cut), made MismatchTokens by drainInto.
 */
export class SamplePool {
  count = 0;
  readonly priority = new Float64Array(POOL_SIZE);
  readonly row = new Float64Array(POOL_SIZE);
  readonly line = new Float64Array(POOL_SIZE);
  readonly token = new Float64Array(POOL_SIZE);
  readonly tokenId = new Float64Array(POOL_SIZE);
  readonly a = new Float64Array(POOL_SIZE);
  readonly b = new Float64Array(POOL_SIZE);
  readonly delta = new Float64Array(POOL_SIZE);
  /** The priorities copied for kthSmallest, which reorders them. */
  private readonly selected = new Float64Array(POOL_SIZE);

  /** A token in; true when the pool is full and must be cut. */
  push(
    priority: number,
    row: number,
    line: number,
    token: number,
    tokenId: number,
    a: number,
    b: number,
    delta: number,
  ): boolean {
    const i = this.count++;
    this.priority[i] = priority;
    this.row[i] = row;
    this.line[i] = line;
    this.token[i] = token;
    this.tokenId[i] = tokenId;
    this.a[i] = a;
    this.b[i] = b;
    this.delta[i] = delta;
    return this.count >= POOL_SIZE;
  }

  /** True when the pool holds as many as it may and must be cut. */
  isFull(): boolean {
    return this.count >= POOL_SIZE;
  }

  /**
   * The pool cut to its SCATTER_POINTS first tokens in the sample's order (priority, then row,
   * then token), in place and in no order; returns the priority of the last kept, the new cut-off.
   * One pass keeps every token up to the cut-off; ties at it beyond the room left (rare) are
   * dropped after, in (row, token) order.
   */
  cut(): number {
    const n = this.count;
    const priority = this.priority;
    const selected = this.selected;
    selected.set(priority.subarray(0, n));
    const cut = kthSmallest(selected.subarray(0, n), SCATTER_POINTS - 1);
    let below = 0;
    let to = 0;
    for (let i = 0; i < n; i++) {
      const p = priority[i] as number;
      if (p > cut) continue;
      if (p < cut) below++;
      if (to !== i) this.move(i, to);
      to++;
    }
    this.count = to;
    if (to > SCATTER_POINTS) this.dropTies(cut, SCATTER_POINTS - below);
    return cut;
  }

  /** Token `from` (all its columns) into place `to`. */
  private move(from: number, to: number): void {
    this.priority[to] = this.priority[from] as number;
    this.row[to] = this.row[from] as number;
    this.line[to] = this.line[from] as number;
    this.token[to] = this.token[from] as number;
    this.tokenId[to] = this.tokenId[from] as number;
    this.a[to] = this.a[from] as number;
    this.b[to] = this.b[from] as number;
    this.delta[to] = this.delta[from] as number;
  }

  /** Of the tokens at priority `cut`, only the `room` first in (row, token) order kept. */
  private dropTies(cut: number, room: number): void {
    const n = this.count;
    const { priority, row, token } = this;
    const at: number[] = [];
    for (let i = 0; i < n; i++) if (priority[i] === cut) at.push(i);
    at.sort(
      (x, y) =>
        (row[x] as number) - (row[y] as number) || (token[x] as number) - (token[y] as number),
    );
    const dropped = new Set(at.slice(room));
    let to = 0;
    for (let i = 0; i < n; i++) {
      if (dropped.has(i)) continue;
      if (to !== i) this.move(i, to);
      to++;
    }
    this.count = to;
  }

  /** The pool's tokens onto `list`, as MismatchTokens; the pool emptied. */
  drainInto(list: MismatchToken[]): void {
    for (let i = 0; i < this.count; i++) {
      list.push({
        row: this.row[i] as number,
        line: this.line[i] as number,
        token: this.token[i] as number,
        tokenId: this.tokenId[i] as number,
        a: this.a[i] as number,
        b: this.b[i] as number,
        delta: this.delta[i] as number,
      });
    }
    this.count = 0;
  }
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

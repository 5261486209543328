/**
 * A byte diff tuned for drift reports: the two sides are usually identical except for a few
 * hunks (a U+FFFD, a dropped `<think>` block), so common prefix/suffix are trimmed first, the
 * middle is diffed by lines (few edits even when whole blocks vanish) and each changed line hunk
 * is refined byte by byte when small enough.
 */

/** A stretch of equal bytes: `a[x, x+length)` equals `b[y, y+length)` (byte offsets). */
export interface EqualRun {
  readonly x: number;
  readonly y: number;
  readonly length: number;
}

/** Myers' edit budget per diff level: beyond it a hunk stays whole (correct, only coarser). */
const LINE_MAX_EDITS = 2000;
const BYTE_MAX_EDITS = 600;
const BYTE_REFINE_MAX_LENGTH = 20_000;

/**
 * Myers O(ND) diff of two integer sequences; the equal runs in order, or undefined when more
 * than `maxEdits` insertions + deletions are needed. Indices are positions in `a` and `b`.
 */
export function myersEqualRuns(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  maxEdits: number,
): EqualRun[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    // Only diagonals -d-1..d+1 are read back when backtracking step d: keep that window.
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, k, x);
    }
  }
  return undefined;
}

function backtrack(
  trace: readonly Int32Array[],
  dEnd: number,
  kEnd: number,
  xEnd: number,
): EqualRun[] {
  const runs: EqualRun[] = [];
  let x = xEnd;
  let y = xEnd - kEnd;
  for (let d = dEnd; d >= 0; d--) {
    const window = trace[d];
    if (!window) break;
    // window[i] holds diagonal i - d - 1 as it was before step d.
    const at = (k: number) => window[k + d + 1] ?? 0;
    const k = x - y;
    if (d === 0) {
      if (x > 0) runs.push({ x: 0, y: 0, length: x });
      break;
    }
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const startX = down ? prevX : prevX + 1;
    if (x > startX) runs.push({ x: startX, y: startX - k, length: x - startX });
    x = prevX;
    y = prevX - prevK;
  }
  return runs.reverse();
}

/** Splits bytes [from, to) into lines (each ending after `\n`, the last maybe not); byte offsets. */
function lineStarts(bytes: Uint8Array, from: number, to: number): number[] {
  const starts = [from];
  for (let p = from; p < to; p++) if (bytes[p] === 10 && p + 1 < to) starts.push(p + 1);
  starts.push(to);
  return starts;
}

/** Interns each line as an integer so the line diff compares numbers. */
function lineKeys(
  bytes: Uint8Array,
  starts: readonly number[],
  intern: Map<string, number>,
): Int32Array {
  const keys = new Int32Array(starts.length - 1);
  for (let i = 0; i + 1 < starts.length; i++) {
    const line = latin1(bytes, starts[i] ?? 0, starts[i + 1] ?? 0);
    let key = intern.get(line);
    if (key === undefined) {
      key = intern.size;
      intern.set(line, key);
    }
    keys[i] = key;
  }
  return keys;
}

/** Bytes as a one-char-per-byte string (a cheap hashable key). */
function latin1(bytes: Uint8Array, from: number, to: number): string {
  let out = "";
  for (let p = from; p < to; p += 8192) {
    out += String.fromCharCode(...bytes.subarray(p, Math.min(to, p + 8192)));
  }
  return out;
}

function pushRun(runs: EqualRun[], x: number, y: number, length: number): void {
  if (length <= 0) return;
  const last = runs[runs.length - 1];
  if (last && last.x + last.length === x && last.y + last.length === y) {
    runs[runs.length - 1] = { x: last.x, y: last.y, length: last.length + length };
  } else {
    runs.push({ x, y, length });
  }
}

function refineHunk(
  a: Uint8Array,
  b: Uint8Array,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  runs: EqualRun[],
): void {
  if (x1 - x0 + (y1 - y0) > BYTE_REFINE_MAX_LENGTH || x1 === x0 || y1 === y0) return;
  const inner = myersEqualRuns(a.subarray(x0, x1), b.subarray(y0, y1), BYTE_MAX_EDITS);
  if (!inner) return;
  for (const r of inner) pushRun(runs, x0 + r.x, y0 + r.y, r.length);
}

/** Equal runs of two byte strings, in order (byte offsets into `a` and `b`). */
export function byteEqualRuns(a: Uint8Array, b: Uint8Array): EqualRun[] {
  let prefix = 0;
  const shorter = Math.min(a.length, b.length);
  while (prefix < shorter && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) {
    suffix++;
  }
  const runs: EqualRun[] = [];
  pushRun(runs, 0, 0, prefix);
  const aEnd = a.length - suffix;
  const bEnd = b.length - suffix;
  if (prefix < aEnd && prefix < bEnd) {
    const aStarts = lineStarts(a, prefix, aEnd);
    const bStarts = lineStarts(b, prefix, bEnd);
    const intern = new Map<string, number>();
    const lineRuns = myersEqualRuns(
      lineKeys(a, aStarts, intern),
      lineKeys(b, bStarts, intern),
      LINE_MAX_EDITS,
    );
    let x = prefix;
    let y = prefix;
    for (const r of lineRuns ?? []) {
      const rx = aStarts[r.x] ?? aEnd;
      const ry = bStarts[r.y] ?? bEnd;
      refineHunk(a, b, x, rx, y, ry, runs);
      const rxEnd = aStarts[r.x + r.length] ?? aEnd;
      pushRun(runs, rx, ry, rxEnd - rx);
      x = rxEnd;
      y = ry + (rxEnd - rx);
    }
    refineHunk(a, b, x, aEnd, y, bEnd, runs);
  }
  pushRun(runs, aEnd, bEnd, suffix);
  return runs;
}

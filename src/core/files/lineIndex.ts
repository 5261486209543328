/**
 * Line-offset index of a JSONL file, built chunk by chunk without holding the file: only the byte
 * offset where each line starts is kept (8 bytes a line in a Float64Array, exact up to 2^53 bytes).
 * Coordinates: byte offsets from the start of the file; line numbers are 1-based, rows 0-based.
 */
export interface LineIndex {
  /** starts[k] = byte offset where line k+1 begins; only the first `count` entries are valid. */
  starts: Float64Array;
  /** Complete lines indexed so far (each ended by `\n`). */
  count: number;
  /** Byte offset where the next, not yet terminated, line begins. */
  pendingStart: number;
  /** Bytes scanned so far (the next chunk must start here). */
  scanned: number;
}

const LF = 0x0a;

/** A fresh, empty index with room for `capacity` lines before it grows. */
export function createLineIndex(capacity = 1024): LineIndex {
  return { starts: new Float64Array(Math.max(1, capacity)), count: 0, pendingStart: 0, scanned: 0 };
}

function push(index: LineIndex, start: number): void {
  if (index.count === index.starts.length) {
    // Doubling keeps appends amortized O(1); the old buffer is garbage right after the copy.
    const grown = new Float64Array(index.starts.length * 2);
    grown.set(index.starts);
    index.starts = grown;
  }
  index.starts[index.count] = start;
  index.count += 1;
}

/**
 * Scans one chunk (bytes at file offset `index.scanned`) for `\n` and records every line it
 * completes; returns how many lines were completed. Chunks must arrive in order with no gaps.
 */
export function scanChunk(index: LineIndex, chunk: Uint8Array): number {
  const before = index.count;
  const base = index.scanned;
  // indexOf is a native memchr in every engine we run on: far faster than a byte loop in JS.
  let at = chunk.indexOf(LF);
  while (at !== -1) {
    push(index, index.pendingStart);
    index.pendingStart = base + at + 1;
    at = chunk.indexOf(LF, at + 1);
  }
  index.scanned = base + chunk.length;
  return index.count - before;
}

/** Byte range [start, end) of 0-based line `row`, without its `\n` (a `\r` before it is kept). */
export function lineRange(index: LineIndex, row: number): readonly [number, number] {
  if (!Number.isInteger(row) || row < 0 || row >= index.count) {
    throw new RangeError(`line ${row + 1} is not indexed (${index.count} lines so far)`);
  }
  const start = index.starts[row] ?? 0;
  const next = row + 1 < index.count ? (index.starts[row + 1] ?? 0) : index.pendingStart;
  return [start, next - 1];
}

/**
 * Closes the index at end of file: a last line without a trailing `\n` counts as a line.
 * Returns true when such a line was added. A file still growing should not be finished.
 */
export function finishLineIndex(index: LineIndex): boolean {
  if (index.scanned <= index.pendingStart) return false;
  push(index, index.pendingStart);
  // The synthetic end sits one byte past the file so lineRange's `next - 1` lands on the end.
  index.pendingStart = index.scanned + 1;
  return true;
}

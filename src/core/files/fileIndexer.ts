import type { ColumnMapping } from "../formats/columnMapping";
import type { FormatId, LineError } from "../formats/types";
import { createLineIndex, finishLineIndex, type LineIndex, scanChunk } from "./lineIndex";
import { type RowSummary, summarizeLine } from "./rowSummary";

/** Bytes → text; the caller passes a TextDecoder (core has no DOM/Node globals). */
export type DecodeUtf8 = (bytes: Uint8Array) => string;

/**
 * Indexing state of one rollout file: line offsets, one summary per trajectory, bad lines.
 * Only summaries are kept: trajectories are re-read from their byte range when opened.
 */
export interface FileIndex {
  readonly lines: LineIndex;
  readonly rows: RowSummary[];
  readonly errors: LineError[];
  /** The file's format: the first good line decides, later lines must match it. */
  format: FormatId | undefined;
  /** Bytes of the line still open at the end of the last chunk. */
  carry: Uint8Array;
  readonly path: string | undefined;
  /** Every line is read through this column mapping (a JSONL file no known producer wrote). */
  readonly mapping?: ColumnMapping;
}

/** What one chunk added: the new rows and bad lines (for posting as a delta). */
export interface IndexDelta {
  readonly rows: readonly RowSummary[];
  readonly errors: readonly LineError[];
  readonly lines: number;
}

/**
 * A fresh index for the file at `path` (used in ids and error messages only), its lines read
 * through `mapping` when one is given.
 */
export function createFileIndex(path?: string, mapping?: ColumnMapping): FileIndex {
  return {
    ...(mapping ? { mapping } : {}),
    lines: createLineIndex(),
    rows: [],
    errors: [],
    format: undefined,
    carry: new Uint8Array(0),
    path,
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function summarizeLines(
  index: FileIndex,
  fromLine: number,
  toLine: number,
  bytes: Uint8Array,
  bytesBase: number,
  decode: DecodeUtf8,
): IndexDelta {
  const rows: RowSummary[] = [];
  const errors: LineError[] = [];
  const { starts } = index.lines;
  for (let k = fromLine; k < toLine; k++) {
    const start = (starts[k] ?? 0) - bytesBase;
    const end = (k + 1 < index.lines.count ? (starts[k + 1] ?? 0) : index.lines.pendingStart) - 1;
    const text = decode(bytes.subarray(start, end - bytesBase));
    const summary = summarizeLine(
      text,
      k + 1,
      index.rows.length,
      index.format,
      index.path,
      index.mapping,
    );
    addSummary(index, summary, { rows, errors });
  }
  return { rows, errors, lines: toLine - fromLine };
}

/**
 * Feeds the next chunk of the file (bytes starting at `index.lines.scanned`): indexes the lines it
 * completes and summarizes each of them once. Returns what was added.
 */
/**
 * Adds one line's (or record's) summary to the index and to the delta being built: its rows, or its
 * error; the first line that loads fixes the file's format.
 */
export function addSummary(
  index: FileIndex,
  result: ReturnType<typeof summarizeLine>,
  delta: { readonly rows: RowSummary[]; readonly errors: LineError[] },
): void {
  if (result.kind === "error") {
    index.errors.push(result.error);
    delta.errors.push(result.error);
  } else if (result.kind === "rows") {
    index.format ??= result.format;
    for (const row of result.rows) {
      index.rows.push(row);
      delta.rows.push(row);
    }
  }
}

export function indexChunk(index: FileIndex, chunk: Uint8Array, decode: DecodeUtf8): IndexDelta {
  const bytes = concat(index.carry, chunk);
  const bytesBase = index.lines.scanned - index.carry.length;
  const fromLine = index.lines.count;
  scanChunk(index.lines, chunk);
  const delta = summarizeLines(index, fromLine, index.lines.count, bytes, bytesBase, decode);
  // Copy, so the chunk's (possibly large) buffer is not kept alive by a small tail view.
  index.carry = bytes.slice(index.lines.pendingStart - bytesBase);
  return delta;
}

/** Ends the file: a last line without `\n` is indexed and summarized too. */
export function finishFileIndex(index: FileIndex, decode: DecodeUtf8): IndexDelta {
  const bytesBase = index.lines.scanned - index.carry.length;
  const fromLine = index.lines.count;
  if (!finishLineIndex(index.lines)) return { rows: [], errors: [], lines: 0 };
  const delta = summarizeLines(index, fromLine, index.lines.count, index.carry, bytesBase, decode);
  index.carry = new Uint8Array(0);
  return delta;
}

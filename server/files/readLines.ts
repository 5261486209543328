import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import {
  isJsonDocumentName,
  jsonDocumentRecords,
  MAX_JSON_DOCUMENT_BYTES,
} from "../../src/core/files/recordIndexer";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { isParquetHead } from "../../src/core/formats/parquet";
import { parquetLines } from "./parquetReader";

/** One line of a text file: 1-based number and text without the line break. */
export interface NumberedLine {
  readonly lineNo: number;
  readonly text: string;
}

async function isParquetFile(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = new Uint8Array(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && isParquetHead(head);
  } finally {
    await handle.close();
  }
}

/**
 * The records of a rollout file as numbered JSON lines, without loading it whole, so multi-GB files
 * stay within memory. A Parquet file (by its magic bytes) yields one JSON line per row, row r as
 * line r + 1, read one row group at a time by byte range (core/formats/parquet.ts). A `.json` file
 * that is one JSON document (an ATIF `trajectory.json`, pretty-printed) yields its object as line 1,
 * or one line per element of an array; other files are read as text lines (`readTextLines`). With
 * `range`, only the lines that start inside it: a JSON document belongs to the range holding byte 0,
 * and a Parquet file cannot be split by bytes (shard such files by file instead).
 */
export async function* readLines(path: string, range?: ByteRange): AsyncGenerator<NumberedLine> {
  if (await isParquetFile(path)) {
    if (range !== undefined) {
      throw new Error(
        `${path}: a Parquet file is read by row group, not split by byte range; give several files to --shard`,
      );
    }
    yield* parquetLines(path);
    return;
  }
  if (isJsonDocumentName(path) && (await stat(path)).size <= MAX_JSON_DOCUMENT_BYTES) {
    const records = jsonDocumentRecords(await readFile(path, "utf8"));
    if (records) {
      if (range !== undefined && !(range.start <= 0 && range.end > 0)) return;
      for (const [k, value] of records.entries())
        yield { lineNo: k + 1, text: stringifyJsonLine(value) };
      return;
    }
  }
  yield* readTextLines(path, range);
}

/** Bytes `[start, end)` of a file: the lines that START inside it (`ownsLineAt` in core/files/shard). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const LF = 0x0a;
const CR = 0x0d;
const CHUNK = 1 << 20;

function decodeLine(pieces: readonly Buffer[], last: Buffer): string {
  const bytes = pieces.length === 0 ? last : Buffer.concat([...pieces, last]);
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
  return bytes.toString("utf8", 0, end);
}

/**
 * Streams a file line by line without loading it whole, so multi-GB rollout files stay within
 * memory. Lines end at `\n` (a `\r` before it is dropped), as the browser's line index splits them,
 * so line numbers agree everywhere. With `range`, yields only the lines whose first byte lies in
 * `[start, end)` — a line cut by either end belongs to the range it starts in — numbered as in the
 * whole file (the newlines before `start` are counted, not decoded). Rejects (on the first
 * iteration) when the file cannot be opened.
 */
async function* readTextLines(path: string, range?: ByteRange): AsyncGenerator<NumberedLine> {
  const start = range?.start ?? 0;
  const end = range?.end ?? Number.POSITIVE_INFINITY;
  if (start >= end) return;
  const stream = createReadStream(path, { highWaterMark: CHUNK });
  /** File offset of the current chunk's first byte. */
  let offset = 0;
  /** Where the current line starts, and its number. */
  let lineStart = 0;
  let lineNo = 1;
  /** Bytes of the current line from earlier chunks (only for a line the range owns). */
  let pieces: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let at = 0;
      for (;;) {
        if (lineStart >= end) return;
        const owned = lineStart >= start;
        const lf = chunk.indexOf(LF, at);
        if (lf === -1) {
          // Copied: the line goes on in the next chunk.
          if (owned && at < chunk.length) pieces.push(Buffer.from(chunk.subarray(at)));
          break;
        }
        if (owned) {
          yield { lineNo, text: decodeLine(pieces, chunk.subarray(at, lf)) };
          pieces = [];
        }
        lineNo += 1;
        lineStart = offset + lf + 1;
        at = lf + 1;
      }
      offset += chunk.length;
    }
    // A last line with no `\n` after it.
    if (lineStart < offset && lineStart >= start && lineStart < end) {
      yield { lineNo, text: decodeLine(pieces, Buffer.alloc(0)) };
    }
  } finally {
    stream.destroy();
  }
}

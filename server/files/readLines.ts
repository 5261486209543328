import { createReadStream } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  isJsonDocumentName,
  jsonDocumentHeadProblem,
  jsonDocumentRecords,
  MAX_JSON_DOCUMENT_BYTES,
  tooBigToReadWhole,
} from "../../src/core/files/recordIndexer";
import {
  binaryFileProblem,
  delimitedTextKind,
  isArtYamlHead,
  isDumpHead,
  isParquetHead,
  SNIFF_BYTES,
} from "../../src/core/files/sniffFile";
import { rolloutDumpPlace, trainDumpNames } from "../../src/core/files/trainDump";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { FormatId, LineError, LineResult } from "../../src/core/formats/types";
import type { Trajectory } from "../../src/core/trajectory/types";

/**
 * One line of a text file: 1-based number and text without the line break. A line too long to
 * read (MAX_LINE_BYTES) has empty text and `error` saying so; read it with readNumberedLine.
 */
export interface NumberedLine {
  readonly lineNo: number;
  readonly text: string;
  readonly error?: LineError;
  /**
   * Set when the "line" is a record of a table or document (a Parquet or CSV row, a torch.save
   * sample, an element of a JSON or YAML document), record r numbered r + 1: no line of the
   * file's text.
   */
  readonly isRecord?: true;
}

/**
 * The longest line read, in bytes (docs/format.md "Bounded reading"): a longer one is skipped
 * with an error naming this cap, the file's other lines are still read.
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** A line as readRolloutLine reads it, or the error of a line too long to read. */
export function readNumberedLine(
  line: NumberedLine,
  format: FormatId | undefined,
  path: string,
  mapping?: ColumnMapping,
): LineResult {
  if (line.error) return { kind: "error", error: line.error };
  return readRolloutLine(line.text, line.lineNo, format, path, mapping);
}

/** How `readRecords` reads a file. */
export interface ReadRecordsOptions {
  /** Only the lines starting in this byte range (numbered as in the whole file). */
  readonly range?: ByteRange;
  /** Read every record in this format (`--format`); else the first valid record fixes it. */
  readonly format?: FormatId;
  /** Read every record through this column mapping (`--map`; records of unknown shape). */
  readonly mapping?: ColumnMapping;
  /** False: detect each record's format on its own instead of fixing the first one's. */
  readonly fixFormat?: boolean;
  /** What the records' errors call the file (default: `path`; a served file's name). */
  readonly name?: string;
}

/** One record of a file read: its 1-based line number (row r of a table: r + 1) and what it holds. */
export interface ReadRecord {
  readonly lineNo: number;
  readonly result: LineResult;
  /** Set when `lineNo` numbers a record of a table or document, not a line (NumberedLine). */
  readonly isRecord?: true;
}

/**
 * The one reader of "a file's trajectories" on the server: every record of `path` in order,
 * whatever holds it — JSON lines, a JSON document, a Parquet table, a torch.save dump
 * (`readLines`) — read into trajectories (`readRolloutLine`, through `options.mapping`), blank
 * records and bad ones (with line and field) included, so each command counts them its way. The
 * first valid record fixes the format of the rest, as the browser's file index does, unless one
 * is forced or `fixFormat` is false. A file that cannot be read at all throws.
 */
export async function* readRecords(
  path: string,
  options: ReadRecordsOptions = {},
): AsyncGenerator<ReadRecord> {
  const { mapping, fixFormat = true, name = path } = options;
  let format = options.format;
  for await (const line of readLines(path, options.range)) {
    const result = readNumberedLine(line, format, name, mapping);
    if (fixFormat && result.kind === "trajectories") format ??= result.format;
    yield line.isRecord
      ? { lineNo: line.lineNo, result, isRecord: true }
      : { lineNo: line.lineNo, result };
  }
}

/**
 * The format of the file's first valid line and its first trajectory, read from the top: what a
 * later byte range of the file (`--shard`, a scan's part) is judged by, as one run over the
 * whole file judges it.
 */
export async function rolloutFileHead(
  path: string,
  forced: FormatId | undefined,
  mapping: ColumnMapping | undefined,
): Promise<{ format?: FormatId; trajectory?: Trajectory }> {
  let format = forced;
  for await (const { result } of readRecords(path, { format: forced, mapping })) {
    if (result.kind !== "trajectories") continue;
    format ??= result.format;
    const trajectory = result.trajectories[0];
    if (trajectory !== undefined) return { format, trajectory };
  }
  return format === undefined ? {} : { format };
}

/** The file's first `n` bytes (fewer when it is shorter). */
export async function fileHead(path: string, n = 8): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const head = new Uint8Array(n);
    const { bytesRead } = await handle.read(head, 0, n, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The train dump files of rollout dump `.../rollout_data/{id}.pt` (core/files/trainDump.ts
 * rolloutDumpPlace, trainDumpNames): `.../train_data/{id}.pt` (slime's --dump-details) and
 * `.../train_data/{id}_{rank}.pt` (miles'), docs/format.md.
 */
export async function trainDumpPathsOf(path: string): Promise<string[]> {
  const place = rolloutDumpPlace(path);
  if (!place) return [];
  const names = await readdir(place.trainDir).catch(() => [] as string[]);
  return trainDumpNames(place.id, names).map((name) => join(place.trainDir, name));
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
  const head = await fileHead(path, SNIFF_BYTES);
  const problem = binaryFileProblem(head);
  if (problem) throw new Error(problem);
  if (isDumpHead(head)) {
    if (range !== undefined) {
      throw new Error(
        `${path}: a torch.save file is read by sample, not split by byte range; give several files to --shard`,
      );
    }
    // The torch and Parquet readers (hyparquet and its codecs) load only for such a file.
    const { torchLines } = await import("./binaryLines");
    yield* torchLines(path);
    return;
  }
  if (head.length >= 4 && isParquetHead(head)) {
    if (range !== undefined) {
      throw new Error(
        `${path}: a Parquet file is read by row group, not split by byte range; give several files to --shard`,
      );
    }
    const { parquetLinesWithDump } = await import("./binaryLines");
    yield* parquetLinesWithDump(path);
    return;
  }
  if (isArtYamlHead(head)) {
    if (range !== undefined && !(range.start <= 0 && range.end > 0)) return;
    yield* documentLines(await artYamlFileRecords(path));
    return;
  }
  const table = delimitedTextKind(path);
  if (table !== undefined) {
    if (range !== undefined && !(range.start <= 0 && range.end > 0)) return;
    yield* documentLines(await delimitedFileRecords(path, table));
    return;
  }
  if (!isJsonDocumentName(path)) {
    const document = jsonDocumentHeadProblem(new TextDecoder().decode(head));
    if (document) throw new Error(document);
  } else {
    const { size } = await stat(path);
    if (size > MAX_JSON_DOCUMENT_BYTES) await refuseBigDocument(path, size);
    else {
      const records = jsonDocumentRecords(await readFile(path, "utf8"));
      if (records) {
        if (range !== undefined && !(range.start <= 0 && range.end > 0)) return;
        yield* documentLines(records);
        return;
      }
    }
  }
  yield* readTextLines(path, range);
}

/** A document's records as numbered lines: record r is line r + 1. */
function* documentLines(records: readonly unknown[]): Generator<NumberedLine> {
  for (const [k, value] of records.entries())
    yield { lineNo: k + 1, text: stringifyJsonLine(value), isRecord: true };
}

/** A file read whole as text, up to MAX_JSON_DOCUMENT_BYTES; `what` names it in the error. */
async function wholeFileText(path: string, what: string): Promise<string> {
  const problem = tooBigToReadWhole(what, (await stat(path)).size);
  if (problem !== undefined) throw new Error(problem);
  return readFile(path, "utf8");
}

/**
 * The records of an ART trajectories YAML file, read whole (the YAML parser loads only for such
 * a file).
 */
async function artYamlFileRecords(path: string): Promise<unknown[]> {
  const text = await wholeFileText(path, "an ART trajectories YAML file");
  const { artYamlRecords } = await import("../../src/core/formats/artYaml");
  return artYamlRecords(text);
}

/** The rows of a CSV or TSV file, read whole (papaparse loads only for such a file). */
async function delimitedFileRecords(path: string, kind: "csv" | "tsv"): Promise<unknown[]> {
  const text = await wholeFileText(path, `a ${kind.toUpperCase()} file`);
  const { csvRecords } = await import("../../src/core/files/csvRecords");
  return csvRecords(text, kind);
}

/**
 * A `.json` file over MAX_JSON_DOCUMENT_BYTES is read as JSON lines; one that starts like a
 * single JSON document (an array, or an object on a line of its own) cannot be, so it is refused
 * with the cap named rather than read as bad lines.
 */
async function refuseBigDocument(path: string, size: number): Promise<void> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.toString("utf8", 0, bytesRead).replace(/^\uFEFF/, "");
    const firstLine = text.split("\n", 1)[0]?.trim() ?? "";
    if (text.trimStart().startsWith("[") || firstLine === "{") {
      throw new Error(
        `${tooBigToReadWhole("a JSON document", size)}; ` +
          "write it as JSON lines (one record per line) to read it",
      );
    }
  } finally {
    await handle.close();
  }
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
  let pieceBytes = 0;
  /** Set once the current line is over MAX_LINE_BYTES: its bytes are no longer kept. */
  let tooLong = false;
  const ended = (lineEnd: number, last: Buffer): NumberedLine => {
    const length = lineEnd - lineStart;
    if (!tooLong && length <= MAX_LINE_BYTES) return { lineNo, text: decodeLine(pieces, last) };
    const cap = MAX_LINE_BYTES / (1024 * 1024);
    const message = `line of ${length} bytes, over the ${cap} MiB line cap: skipped`;
    return { lineNo, text: "", error: { line: lineNo, message } };
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let at = 0;
      for (;;) {
        if (lineStart >= end) return;
        const owned = lineStart >= start;
        const lf = chunk.indexOf(LF, at);
        if (lf === -1) {
          // Copied: the line goes on in the next chunk (unless it is over the cap already).
          if (owned && at < chunk.length && !tooLong) {
            pieces.push(Buffer.from(chunk.subarray(at)));
            pieceBytes += chunk.length - at;
            if (pieceBytes > MAX_LINE_BYTES) {
              tooLong = true;
              pieces = [];
            }
          }
          break;
        }
        if (owned) {
          yield ended(offset + lf, chunk.subarray(at, lf));
          pieces = [];
        }
        pieceBytes = 0;
        tooLong = false;
        lineNo += 1;
        lineStart = offset + lf + 1;
        at = lf + 1;
      }
      offset += chunk.length;
    }
    // A last line with no `\n` after it.
    if (lineStart < offset && lineStart >= start && lineStart < end) {
      yield ended(offset, Buffer.alloc(0));
    }
  } finally {
    stream.destroy();
  }
}

import type { ColumnMapping } from "../formats/columnMapping";
import { parseJsonLine } from "../formats/jsonLine";
import { detectFormat } from "../formats/readRolloutLine";
import type { FormatId, LineError } from "../formats/types";
import { isRecord } from "../isRecord";
import { addSummary, type FileIndex, type IndexDelta } from "./fileIndexer";
import { type RowSummary, summarizeRecord } from "./rowSummary";

/**
 * A file whose records are not one per line: a Parquet table (rows read by byte range, a row
 * group at a time) or one JSON document (an ATIF `trajectory.json`, pretty-printed over many
 * lines, or a JSON array of records). Record r counts as line r + 1 everywhere.
 */
export interface RecordSource {
  readonly rows: number;
  /** The table's columns (a Parquet schema's top-level fields, a JSON record's keys). */
  readonly columns: readonly string[];
  /** Chunks read together (Parquet row groups), with the file bytes each stands for. */
  readonly groups: readonly {
    readonly start: number;
    readonly rows: number;
    readonly bytes: number;
  }[];
  /** Records [start, end), as stored: read them through `mapping` when there is one. */
  read(start: number, end: number): Promise<unknown[]>;
  /** How a table no known producer wrote maps to trajectories (readRolloutValue applies it). */
  readonly mapping?: ColumnMapping;
  /**
   * Summaries of records [start, end) (one group) without reading them whole, numbered from
   * `firstIndex`; undefined when they must be read and summarized one by one.
   */
  summarize?(
    start: number,
    end: number,
    firstIndex: number,
    format: FormatId | undefined,
    path: string | undefined,
  ): Promise<RowSummary[] | undefined>;
}

/** Largest JSON document read whole (a bigger `.json` file is read as JSONL, line by line). */
export const MAX_JSON_DOCUMENT_BYTES = 256 * 1024 * 1024;

/**
 * Why a file of `size` bytes that can only be read whole (a JSON or YAML document, a CSV table)
 * is not read, `what` naming it; undefined when it is within MAX_JSON_DOCUMENT_BYTES.
 */
export function tooBigToReadWhole(what: string, size: number): string | undefined {
  if (size <= MAX_JSON_DOCUMENT_BYTES) return undefined;
  const mib = MAX_JSON_DOCUMENT_BYTES / (1024 * 1024);
  return `${what} of ${size} bytes is over the ${mib} MiB read whole`;
}

/**
 * The records of a whole-file JSON document: an object is one record, an array one per element,
 * a W&B table one per row (tableRecords), and an object whose one key holds a list of objects (an
 * export's `{"data": [...]}` wrapper) one per element of that list, unless a format reads the
 * object itself. Undefined when the text is not one JSON value (a JSONL file named `.json`):
 * read it by lines.
 */
export function jsonDocumentRecords(text: string): unknown[] | undefined {
  const parsed = parseJsonLine(text);
  if (!parsed.ok) return undefined;
  if (Array.isArray(parsed.value)) return parsed.value;
  if (!isRecord(parsed.value)) return undefined;
  return tableRecords(parsed.value) ?? wrappedRecords(parsed.value) ?? [parsed.value];
}

/** The keys of a W&B table file besides `columns` and `data` (an artifact's copy adds them). */
const TABLE_KEYS = new Set([
  "columns",
  "data",
  "_type",
  "ncols",
  "nrows",
  "column_types",
  "log_mode",
  "_increment_num",
]);

/**
 * The rows of a W&B table, one record each, its cells by column name: `{"columns": [...],
 * "data": [[...], ...]}`, as `wandb.Table` writes itself into a run's `media/table/*.table.json`
 * (TRL's GRPO `completions` table among them), and with `_type: "table"` and its column types
 * into an artifact. Undefined for anything else: a column name that is not a unique string, a
 * row whose length is not the table's, a key no table file has, or an object a format reads.
 */
function tableRecords(value: Record<string, unknown>): unknown[] | undefined {
  const { columns, data } = value;
  if (!Array.isArray(columns) || columns.length === 0 || !Array.isArray(data)) return undefined;
  if (!columns.every((c) => typeof c === "string") || new Set(columns).size !== columns.length) {
    return undefined;
  }
  if (!Object.keys(value).every((k) => TABLE_KEYS.has(k))) return undefined;
  if (!data.every((row) => Array.isArray(row) && row.length === columns.length)) return undefined;
  if (detectFormat(value) !== undefined) return undefined;
  return data.map((row: unknown[]) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}

/** The list of records a one-key wrapper holds (`{"data": [...]}`); nothing else is dropped by it. */
function wrappedRecords(value: Record<string, unknown>): unknown[] | undefined {
  const keys = Object.keys(value);
  if (keys.length !== 1 || detectFormat(value) !== undefined) return undefined;
  const inner = value[keys[0] as string];
  return Array.isArray(inner) && inner.length > 0 && inner.every(isRecord) ? inner : undefined;
}

/**
 * Why a JSON-lines file (any name but `.json`) cannot be read line by line, judged from its first
 * bytes: it is one JSON document — an array, or an object opening on a line of its own, as
 * `json.dump(..., indent=2)` writes — so every line of it would be reported bad. Undefined when
 * it starts like JSON lines.
 */
export function jsonDocumentHeadProblem(head: string): string | undefined {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  // `[` or `{` alone on its line, the line break seen (not a long first line cut by the head's
  // end); a one-line array is a bad line of its own (readRolloutLine says what it may be).
  const opening = /^([[{])[ \t\r]*\n/.exec(text)?.[1];
  if (opening === undefined) return undefined;
  const what =
    opening === "[" ? "a JSON array spread over lines" : "one JSON object spread over lines";
  return (
    `the file is ${what}, one JSON document, not JSON lines (one record per line): ` +
    `name it .json to read it whole (up to ${MAX_JSON_DOCUMENT_BYTES / (1024 * 1024)} MiB), ` +
    "or write one record per line (jq -c '.[]' for an array, jq -c . for an object)"
  );
}

/** True for a file name that may hold one JSON document rather than JSON lines. */
export function isJsonDocumentName(name: string): boolean {
  return name.toLowerCase().endsWith(".json");
}

/**
 * The records of a JSON document; with a `mapping`, each object record is to be read through it
 * (a table no known producer wrote, see columnMapping.ts).
 */
export function memoryRecordSource(
  records: readonly unknown[],
  bytes: number,
  mapping?: ColumnMapping,
): RecordSource {
  const first = records[0];
  return {
    rows: records.length,
    columns: isRecord(first) ? Object.keys(first) : [],
    groups: [{ start: 0, rows: records.length, bytes }],
    read: async (start, end) => records.slice(start, end),
    ...(mapping ? { mapping } : {}),
  };
}

/**
 * True when the first record of a table is an object no format reads (its keys are a table's
 * columns, not a known producer's record): the table needs a column mapping to be read.
 */
export async function needsColumnMapping(source: RecordSource): Promise<boolean> {
  if (source.mapping || source.rows === 0 || source.columns.length === 0) return false;
  const [first] = await source.read(0, 1);
  return isRecord(first) && detectFormat(first) === undefined;
}

/**
 * The keys of a JSONL file's first record when no format reads it (a dump no known producer
 * wrote: it needs a column mapping), else undefined. `head` is the file's first bytes as text,
 * `complete` true when it is the whole file (else its last, maybe cut, line is not looked at).
 * Blank lines and lines that are not JSON objects are passed over (they are errors either way);
 * the first object decides.
 */
export function jsonLinesNeedingMapping(head: string, complete: boolean): string[] | undefined {
  const lines = head.split("\n");
  if (!complete) lines.pop();
  for (const line of lines) {
    if (line.trim() === "") continue;
    const parsed = parseJsonLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    if (!parsed.ok) continue;
    const value = parsed.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const record = value as Record<string, unknown>;
    return detectFormat(record) === undefined ? Object.keys(record) : undefined;
  }
  return undefined;
}

/** What one chunk of records added, and the file bytes indexed so far. */
export interface RecordIndexDelta extends IndexDelta {
  readonly bytes: number;
}

/**
 * Indexes a record source into `index` one chunk at a time, the way indexChunk indexes JSONL: one
 * summary per trajectory, bad records as errors with their line number (record r is line r + 1),
 * the first good record fixing the format.
 */
export async function* indexRecords(
  source: RecordSource,
  index: FileIndex,
): AsyncGenerator<RecordIndexDelta> {
  let bytes = 0;
  for (const group of source.groups) {
    const end = group.start + group.rows;
    const errors: LineError[] = [];
    // Once the first rows fixed the format: summaries from the columns, where they apply.
    const quick =
      index.format === undefined
        ? undefined
        : await source.summarize?.(group.start, end, index.rows.length, index.format, index.path);
    if (quick) {
      for (const row of quick) index.rows.push(row);
      bytes += group.bytes;
      yield { rows: quick, errors, lines: group.rows, bytes };
      continue;
    }
    const records = await source.read(group.start, end);
    const rows: RowSummary[] = [];
    for (const [k, value] of records.entries()) {
      const lineNo = group.start + k + 1;
      const result = summarizeRecord(
        value,
        lineNo,
        index.rows.length,
        index.format,
        index.path,
        source.mapping,
      );
      addSummary(index, result, { rows, errors });
    }
    bytes += group.bytes;
    yield { rows, errors, lines: records.length, bytes };
  }
}

import {
  type AsyncBuffer,
  type ColumnMetaData,
  type FileMetaData,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
} from "hyparquet";
import type { ColumnMapping } from "./columnMapping";
import { getTreePath } from "./hyparquetInternals";
import { checkGroupPages, checkParquetFooter } from "./parquetChecks";
import { PARQUET_COMPRESSORS } from "./parquetCodecs";
import { readHeadRows } from "./parquetHead";
import { isNumberListPath, readNumberListChunk } from "./parquetLists";

/*
 * Rollout files in Parquet (docs/format.md "Parquet"), read with hyparquet by byte range: the
 * footer first, then only the column chunks of the row group a row lives in, from an AsyncBuffer
 * over a File (browser worker) or a file handle (Node). Rows count as a JSONL file's lines (row
 * r is line r + 1) and each row group is read as one chunk. A row becomes a record object that
 * the adapters of readRolloutLine read; columns are mapped per producer where a producer's table
 * is not already a record of a known format.
 */

/**
 * How a table's rows become records:
 * - `records`: each row already is a record of a known format (prime-rl samples, ART
 *   trajectories, or any JSONL format's keys as columns);
 * - `prime-rl-rollouts`: prime-rl's rollout table (`input_tokens`, `output_tokens`,
 *   `output_logprobs`, `rewards`, ...), mapped to a slime Sample (prompt + response tokens);
 * - `mapped`: any other table, through the column mapping the user chose (columnMapping.ts).
 */
export type ParquetProducer = "records" | "prime-rl-rollouts" | "mapped";

export interface ParquetRowGroup {
  /** Index of the group's first row in the file. */
  readonly start: number;
  readonly rows: number;
}

/** An opened Parquet file: its footer, read once, and what the reader needs of it. */
export interface ParquetFile {
  readonly file: AsyncBuffer;
  readonly metadata: FileMetaData;
  readonly columns: readonly string[];
  readonly rowGroups: readonly ParquetRowGroup[];
  readonly rows: number;
  readonly producer: ParquetProducer;
  /** Set when the producer is `mapped`. */
  readonly mapping?: ColumnMapping;
}

/** Top-level column names of the file's schema. */
function columnNames(metadata: FileMetaData): string[] {
  const [root, ...rest] = metadata.schema;
  const names: string[] = [];
  let k = 0;
  let left = root?.num_children ?? 0;
  // Schema elements are a depth-first list: skip each top-level field's descendants.
  while (left > 0 && k < rest.length) {
    const field = rest[k];
    if (!field) break;
    names.push(field.name);
    let skip = field.num_children ?? 0;
    k += 1;
    while (skip > 0 && k < rest.length) {
      skip += (rest[k]?.num_children ?? 0) - 1;
      k += 1;
    }
    left -= 1;
  }
  return names;
}

/** Which mapping a table's columns call for. */
export function parquetProducerOf(columns: readonly string[]): ParquetProducer {
  const has = new Set(columns);
  return has.has("input_tokens") && has.has("output_tokens") ? "prime-rl-rollouts" : "records";
}

/**
 * Reads the footer (by byte range) and indexes the row groups. With a `mapping`, rows are to be
 * read through it whatever their columns (a table no known producer wrote): the records stay as
 * they are and their reader applies it (`ParquetFile.mapping`, readRolloutValue).
 */
export async function openParquet(
  file: AsyncBuffer,
  options: { readonly mapping?: ColumnMapping } = {},
): Promise<ParquetFile> {
  const metadata = await parquetMetadataAsync(file).catch((error: unknown) => {
    throw new Error(`unreadable Parquet footer (${messageOf(error)})`);
  });
  checkParquetFooter(metadata, file.byteLength);
  const rowGroups: ParquetRowGroup[] = [];
  let start = 0;
  for (const group of metadata.row_groups) {
    const rows = Number(group.num_rows);
    rowGroups.push({ start, rows });
    start += rows;
  }
  const columns = columnNames(metadata);
  const { mapping } = options;
  if (mapping)
    return { file, metadata, columns, rowGroups, rows: start, producer: "mapped", mapping };
  return { file, metadata, columns, rowGroups, rows: start, producer: parquetProducerOf(columns) };
}

/**
 * A decoded Parquet value as plain JSON-like data: 64-bit integers become numbers (a string
 * when beyond 2^53, never a silently rounded number), dates ISO strings, bytes number arrays,
 * missing nested values null.
 */
export function plainValue(value: unknown): unknown {
  if (typeof value === "bigint") {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value.toString();
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) {
    // Token and logprob lists are plain numbers: hand them over as they are (no per-entry copy).
    let k = 0;
    while (k < value.length && typeof value[k] === "number") k++;
    return k === value.length ? value : value.map(plainValue);
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    // A null nested column reads as undefined; it is null in the table (and in JSON).
    for (const [k, v] of Object.entries(value)) out[k] = v === undefined ? null : plainValue(v);
    return out;
  }
  return value;
}

/** prime-rl rollout row -> slime Sample: prompt then response tokens, response-only arrays. */
function primeRolloutSample(row: Record<string, unknown>): Record<string, unknown> {
  const { input_tokens, output_tokens, output_logprobs, rewards, ...rest } = row;
  const input = Array.isArray(input_tokens) ? input_tokens : [];
  const output = Array.isArray(output_tokens) ? output_tokens : [];
  const sample: Record<string, unknown> = {
    ...rest,
    tokens: input.concat(output),
    response_length: output.length,
    rollout_log_probs: Array.isArray(output_logprobs) ? output_logprobs : null,
    // Read as a slime Sample, named for its producer (formats/slime.ts, primeRlRolloutsAdapter).
    prime_rl_rollouts: true,
  };
  // The older table's per-token `loss_mask` maps when it covers the response exactly.
  if (Array.isArray(rest.loss_mask) && rest.loss_mask.length !== output.length) {
    sample.loss_mask = null;
    sample.prime_rl_loss_mask = rest.loss_mask;
  }
  if (rewards !== undefined) sample.reward = rewards;
  return sample;
}

/**
 * One row as the record its producer's adapter reads. A mapped table's rows stay as they are: the
 * reader applies the mapping (readRolloutValue), so its errors name the table's columns.
 */
export function recordOfRow(
  row: Record<string, unknown>,
  producer: ParquetProducer,
): Record<string, unknown> {
  return recordOfPlainRow(plainValue(row) as Record<string, unknown>, producer);
}

/** recordOfRow for a row whose values are plain already. */
export function recordOfPlainRow(
  plain: Record<string, unknown>,
  producer: ParquetProducer,
): Record<string, unknown> {
  return producer === "prime-rl-rollouts" ? primeRolloutSample(plain) : plain;
}

export { PARQUET_COMPRESSORS };

/** Row ranges up to this size are read page by page. */
const PAGED_READ_ROWS = 64;

/** The number-list columns of a row group that readNumberListChunk reads, with their chunk's bytes. */
function numberListChunks(parquet: ParquetFile, groupIndex: number) {
  const tree = parquetSchema(parquet.metadata);
  const group = parquet.metadata.row_groups[groupIndex];
  const chunks: { name: string; path: ReturnType<typeof getTreePath>; meta: ColumnMetaData }[] = [];
  for (const chunk of group?.columns ?? []) {
    const meta = chunk.meta_data;
    if (!meta || chunk.file_path) continue;
    const path = getTreePath(tree, meta.path_in_schema);
    const name = meta.path_in_schema[0];
    if (name !== undefined && isNumberListPath(path)) chunks.push({ name, path, meta });
  }
  return chunks;
}

/**
 * Records of rows [start, end) inside row group `groupIndex`, its number-list columns through
 * readNumberListChunk (one byte range each, the whole chunk) and the others through hyparquet.
 * Undefined when it has no such column, or when one uses an encoding that reader leaves to
 * hyparquet.
 */
async function readInGroup(
  parquet: ParquetFile,
  groupIndex: number,
  start: number,
  end: number,
): Promise<Record<string, unknown>[] | undefined> {
  const lists = numberListChunks(parquet, groupIndex);
  const group = parquet.rowGroups[groupIndex];
  if (lists.length === 0 || !group) return undefined;
  const decoded = new Map<string, (unknown[] | null)[]>();
  const others = parquet.columns.filter((c) => !lists.some((l) => l.name === c));
  const [rest, ...chunks] = await Promise.all([
    others.length === 0
      ? undefined
      : parquetReadObjects({
          file: parquet.file,
          metadata: parquet.metadata,
          columns: others,
          rowStart: start,
          rowEnd: end,
          compressors: PARQUET_COMPRESSORS,
        }),
    ...lists.map(({ meta }) => {
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      return parquet.file.slice(start, start + Number(meta.total_compressed_size));
    }),
  ]);
  for (const [k, { name, path, meta }] of lists.entries()) {
    const bytes = chunks[k];
    if (!bytes) return undefined;
    const rows = readNumberListChunk(new Uint8Array(bytes), path, meta, PARQUET_COMPRESSORS);
    if (!rows || rows.length !== group.rows) return undefined;
    decoded.set(name, rows);
  }
  const out: Record<string, unknown>[] = [];
  for (let r = start; r < end; r++) {
    const row: Record<string, unknown> = {};
    const own = rest?.[r - start];
    for (const name of parquet.columns) {
      // The fast reader's lists are plain numbers already; hyparquet's values are made plain.
      const list = decoded.get(name);
      row[name] = list
        ? list[r - group.start]
        : own?.[name] === undefined
          ? null
          : plainValue(own[name]);
    }
    out.push(recordOfPlainRow(row, parquet.producer));
  }
  return out;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Records of rows [start, end) (only the row groups holding them are read). A damaged file's
 * error names the rows (or the row group and column, from the checks before decoding).
 */
export async function readParquetRecords(
  parquet: ParquetFile,
  start: number,
  end: number,
): Promise<Record<string, unknown>[]> {
  try {
    return await readRecords(parquet, start, end);
  } catch (error) {
    const message = messageOf(error);
    if (message.startsWith("row group ")) throw error;
    throw new Error(`rows ${start + 1}–${end}: cannot decode (${message})`);
  }
}

async function readRecords(
  parquet: ParquetFile,
  start: number,
  end: number,
): Promise<Record<string, unknown>[]> {
  // Every page header of the row groups read is checked before a page is decoded (parquetChecks).
  for (const [k, g] of parquet.rowGroups.entries()) {
    if (g.start < end && start < g.start + g.rows)
      await checkGroupPages(parquet.file, parquet.metadata, k);
  }
  // Many rows of one row group (indexing, drift scans): the fast reader of number lists where it
  // applies. A few rows (the first ones, one opened trajectory) read only their pages, below.
  const group = parquet.rowGroups.findIndex((g) => g.start <= start && end <= g.start + g.rows);
  if (group >= 0 && end - start > PAGED_READ_ROWS) {
    const records = await readInGroup(parquet, group, start, end);
    if (records) return records;
  }
  // The first rows (a file opening): from the first pages of the first row group only.
  const head =
    start === 0 && end <= PAGED_READ_ROWS
      ? await readHeadRows(parquet.file, parquet.metadata, end)
      : undefined;
  const rows =
    head ??
    (await parquetReadObjects({
      file: parquet.file,
      metadata: parquet.metadata,
      rowStart: start,
      rowEnd: end,
      // A few rows (the first ones, or one opened trajectory): read only the pages holding them
      // (the page index). Bulk reads take whole column chunks: page by page is slower there.
      useOffsetIndex: end - start <= PAGED_READ_ROWS,
      compressors: PARQUET_COMPRESSORS,
    }));
  return rows.map((row) => recordOfRow(row, parquet.producer));
}

/** Every record of the file, one row group at a time, numbered like lines (row r is line r + 1). */
export async function* parquetRecords(
  parquet: ParquetFile,
): AsyncGenerator<{ readonly lineNo: number; readonly value: Record<string, unknown> }> {
  for (const group of parquet.rowGroups) {
    const records = await readParquetRecords(parquet, group.start, group.start + group.rows);
    for (const [k, value] of records.entries()) yield { lineNo: group.start + k + 1, value };
  }
}

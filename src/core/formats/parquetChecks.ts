import type { AsyncBuffer, ColumnMetaData, FileMetaData, PageHeader } from "hyparquet";
import { parquetHeader } from "./hyparquetInternals";

/*
 * Every size a Parquet file declares, checked against the file's own byte size before anything is
 * allocated or decoded (docs/format.md "Parquet: what a damaged file gets"). hyparquet trusts its
 * footer and page headers: a footer claiming a billion rows makes it allocate a billion row
 * objects, and a page header missing a required field (a single flipped byte) makes its level
 * decoder read at offset NaN for ever. So the footer is checked when the file is opened, and the
 * page headers of a column chunk before hyparquet (or our own list reader) decodes it; a bad one
 * is an error naming the row group, the column and the byte.
 */

/**
 * Values (or rows) one stored byte may stand for. Run-length encoding lets a few bytes declare
 * millions of equal values, so this is far above what data compresses to (a token list takes
 * bytes per value) and far below what a lying header claims (a billion rows in 5 KB).
 */
const VALUES_PER_BYTE = 1024;
/** Slack for small files and pages. */
const MIN_DECLARED = 1 << 20;

/** The largest count `bytes` stored bytes may declare (rows, values). */
export function maxDeclaredCount(bytes: number): number {
  return Math.max(MIN_DECLARED, bytes * VALUES_PER_BYTE);
}

const isCount = (n: unknown): n is number | bigint =>
  (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) ||
  (typeof n === "bigint" && n >= 0n && n <= BigInt(Number.MAX_SAFE_INTEGER));

/** Where a column chunk is, in words for an error. */
export function chunkPlace(metadata: FileMetaData, group: number, meta: ColumnMetaData): string {
  let start = 0;
  for (let g = 0; g < group; g++) start += Number(metadata.row_groups[g]?.num_rows ?? 0);
  const rows = Number(metadata.row_groups[group]?.num_rows ?? 0);
  const name = meta.path_in_schema.join(".");
  return `row group ${group} (rows ${start + 1}–${start + rows}), column "${name}"`;
}

/** The byte range [start, end) of a column chunk, as its metadata declares it. */
export function chunkRange(meta: ColumnMetaData): { start: number; end: number } {
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
  return { start, end: start + Number(meta.total_compressed_size) };
}

/**
 * Throws when the footer declares more than a file of `byteLength` bytes can hold: a row group
 * with more rows, or a column chunk with more values, than the file has bits; a column chunk
 * outside the file's data (before the first magic bytes or into the footer).
 */
export function checkParquetFooter(metadata: FileMetaData, byteLength: number): void {
  const max = maxDeclaredCount(byteLength);
  // The footer and its 8 trailing bytes hold no column data.
  const dataEnd = byteLength - 8 - Number(metadata.metadata_length ?? 0);
  if (!isCount(metadata.num_rows) || Number(metadata.num_rows) > max)
    throw new Error(
      `the footer declares ${metadata.num_rows} rows, more than a ${byteLength}-byte file can hold`,
    );
  for (const [g, group] of metadata.row_groups.entries()) {
    if (!isCount(group.num_rows) || Number(group.num_rows) > max)
      throw new Error(
        `row group ${g} declares ${group.num_rows} rows, more than a ${byteLength}-byte file can hold`,
      );
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta || chunk.file_path) continue;
      const where = chunkPlace(metadata, g, meta);
      if (!isCount(meta.num_values) || Number(meta.num_values) > max)
        throw new Error(
          `${where} declares ${meta.num_values} values, more than a ${byteLength}-byte file can hold`,
        );
      const offsets = [meta.data_page_offset, meta.total_compressed_size];
      if (meta.dictionary_page_offset !== undefined) offsets.push(meta.dictionary_page_offset);
      const { start, end } = chunkRange(meta);
      if (!offsets.every(isCount) || start < 4 || end > dataEnd)
        throw new Error(
          `${where}: its data (bytes ${start}–${end}) lies outside the file's ${dataEnd} data bytes` +
            " (a truncated or damaged file)",
        );
    }
  }
}

const required = (value: unknown, name: string, at: string) => {
  if (!isCount(value)) throw new Error(`${at}: the page header's ${name} is missing or invalid`);
  return Number(value);
};

/**
 * Throws when a page header lacks a field its decoder relies on or declares more than `room`
 * bytes (what is left of its column chunk) can hold. `at` names the page in the error.
 */
export function checkPageHeader(header: PageHeader, room: number, at: string): void {
  if (header.type === undefined) throw new Error(`${at}: unknown page type`);
  const compressed = required(header.compressed_page_size, "compressed_page_size", at);
  const uncompressed = required(header.uncompressed_page_size, "uncompressed_page_size", at);
  if (compressed > room)
    throw new Error(`${at}: the page declares ${compressed} bytes, its column chunk has ${room}`);
  const most = maxDeclaredCount(Math.max(compressed, uncompressed));
  const v1 = header.data_page_header;
  const v2 = header.data_page_header_v2;
  const dictionary = header.dictionary_page_header;
  const page = header.type === "DATA_PAGE" ? v1 : header.type === "DATA_PAGE_V2" ? v2 : dictionary;
  if (header.type === "INDEX_PAGE") return;
  if (!page) throw new Error(`${at}: a ${header.type} without its header`);
  const values = required(page.num_values, "num_values", at);
  if (values > most)
    throw new Error(`${at}: the page declares ${values} values in ${compressed} bytes`);
  if (page.encoding === undefined) throw new Error(`${at}: unknown page encoding`);
  if (!v2 || header.type !== "DATA_PAGE_V2") return;
  const nulls = required(v2.num_nulls, "num_nulls", at);
  required(v2.num_rows, "num_rows", at);
  const levels =
    required(v2.definition_levels_byte_length, "definition_levels_byte_length", at) +
    required(v2.repetition_levels_byte_length, "repetition_levels_byte_length", at);
  if (nulls > values || levels > compressed)
    throw new Error(`${at}: the page's level lengths or null count exceed the page`);
}

/** Bytes read first for a page header; it grows while a header is cut by the read's end. */
const HEADER_PROBE = 256;
/** A page header (statistics included) larger than this is damage, not data. */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** The header of the page at `at` inside [at, end) of `file`, and its length. */
async function pageHeaderAt(file: AsyncBuffer, at: number, end: number, place: string) {
  for (let size = HEADER_PROBE; ; size *= 16) {
    const bytes = await file.slice(at, Math.min(end, at + size));
    const reader = { view: new DataView(bytes), offset: 0 };
    try {
      const header = parquetHeader(reader);
      if (reader.offset <= bytes.byteLength) return { header, length: reader.offset };
    } catch (error) {
      if (at + size >= end || size >= MAX_HEADER_BYTES)
        throw new Error(`${place}: unreadable page header (${(error as Error).message})`);
    }
  }
}

/**
 * Walks the page headers of one column chunk (`chunkPlace` names it in errors), reading only the
 * headers, and throws at the first one checkPageHeader refuses or that runs past the chunk.
 */
export async function checkChunkPages(
  file: AsyncBuffer,
  meta: ColumnMetaData,
  place: string,
): Promise<void> {
  const { start, end } = chunkRange(meta);
  let at = start;
  while (at < end - 1) {
    const where = `${place}, page at byte ${at}`;
    const { header, length } = await pageHeaderAt(file, at, end, where);
    checkPageHeader(header, end - at - length, where);
    at += length + header.compressed_page_size;
  }
}

/** Column chunks already walked, per file (a chunk is checked once however often it is read). */
const checkedChunks = new WeakMap<FileMetaData, Set<string>>();

/**
 * Checks the page headers of row group `group`'s chunks of `columns` (every column when omitted)
 * before they are decoded, once per chunk.
 */
export async function checkGroupPages(
  file: AsyncBuffer,
  metadata: FileMetaData,
  group: number,
  columns?: readonly string[],
): Promise<void> {
  let done = checkedChunks.get(metadata);
  if (!done) {
    done = new Set();
    checkedChunks.set(metadata, done);
  }
  for (const chunk of metadata.row_groups[group]?.columns ?? []) {
    const meta = chunk.meta_data;
    const name = meta?.path_in_schema[0];
    if (!meta || chunk.file_path || name === undefined) continue;
    if (columns && !columns.includes(name)) continue;
    const key = `${group}/${meta.path_in_schema.join(".")}`;
    if (done.has(key)) continue;
    await checkChunkPages(file, meta, chunkPlace(metadata, group, meta));
    done.add(key);
  }
}

import type { AsyncBuffer, ColumnMetaData, FileMetaData, SchemaTree } from "hyparquet";
import { flatten, parquetSchema } from "hyparquet";
import { DEFAULT_PARSERS, getTreePath, parquetHeader, readColumn } from "./hyparquetInternals";
import { PARQUET_COMPRESSORS } from "./parquetCodecs";
import { isNumberListPath, readNumberListChunk } from "./parquetLists";

/*
 * The first rows of a Parquet file from the first pages of its first row group. Without a page
 * index (pyarrow writes none unless asked) a reader knows where a column chunk starts but not
 * where its pages end, so hyparquet reads whole column chunks, and a table written in one big row
 * group (pyarrow's default is a million rows) would be read whole before its first row shows.
 * Here each chunk is read from its start in growing prefixes, cut at the last whole page, until
 * the rows wanted are decoded. Columns other than plain values and number lists are left to the
 * caller (undefined).
 */

/** First prefix read of each column chunk; it grows 4x until it holds the rows. */
const FIRST_PREFIX_BYTES = 64 * 1024;

/** Length of the whole pages at the start of `bytes` (a column chunk's prefix). */
export function wholePagesLength(bytes: Uint8Array): number {
  const reader = {
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    offset: 0,
  };
  let end = 0;
  while (reader.offset < bytes.byteLength) {
    try {
      const header = parquetHeader(reader);
      if (reader.offset + header.compressed_page_size > bytes.byteLength) break;
      reader.offset += header.compressed_page_size;
      end = reader.offset;
    } catch {
      break; // a header cut by the prefix's end
    }
  }
  return end;
}

interface Column {
  readonly name: string;
  readonly path: SchemaTree[];
  readonly meta: ColumnMetaData;
}

/** Rows decoded from whole pages of one chunk, and whether every row there is complete. */
function decodePrefix(bytes: Uint8Array, column: Column, wanted: number, whole: boolean) {
  const { path, meta } = column;
  if (isNumberListPath(path)) {
    const rows = readNumberListChunk(bytes, path, meta, PARQUET_COMPRESSORS);
    // A list may run on into the next page: the last row is whole only when a next one started.
    return rows && { rows, enough: whole || rows.length > wanted };
  }
  const element = path.at(-1)?.element;
  if (!element) return undefined;
  const reader = {
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    offset: 0,
  };
  const { data } = readColumn(
    reader,
    { groupStart: 0, groupRows: wanted, selectStart: 0, selectEnd: wanted },
    {
      pathInSchema: meta.path_in_schema,
      schemaPath: path,
      element,
      type: meta.type,
      codec: meta.codec,
      parsers: DEFAULT_PARSERS,
      compressors: PARQUET_COMPRESSORS,
    },
  );
  const rows = Array.from(flatten(data));
  return { rows, enough: whole || rows.length >= wanted };
}

/** The first `wanted` values of one column chunk of the first row group. */
async function headOfChunk(
  file: AsyncBuffer,
  column: Column,
  wanted: number,
): Promise<unknown[] | undefined> {
  const start = Number(column.meta.dictionary_page_offset || column.meta.data_page_offset);
  const total = Number(column.meta.total_compressed_size);
  for (let size = FIRST_PREFIX_BYTES; ; size *= 4) {
    const whole = size >= total;
    const prefix = new Uint8Array(await file.slice(start, start + Math.min(size, total)));
    const bytes = whole ? prefix : prefix.subarray(0, wholePagesLength(prefix));
    const decoded = decodePrefix(bytes, column, wanted, whole);
    if (!decoded) return undefined;
    if (decoded.enough) return decoded.rows.slice(0, wanted);
  }
}

/**
 * Rows [0, wanted) of the file as hyparquet's row objects (column name -> value), read from the
 * first pages of the first row group; undefined when a column is neither a plain value nor a
 * number list (the caller reads those rows with hyparquet).
 */
export async function readHeadRows(
  file: AsyncBuffer,
  metadata: FileMetaData,
  wanted: number,
): Promise<Record<string, unknown>[] | undefined> {
  const group = metadata.row_groups[0];
  if (!group || wanted > Number(group.num_rows)) return undefined;
  const tree = parquetSchema(metadata);
  const columns: Column[] = [];
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    const name = meta?.path_in_schema[0];
    if (!meta || name === undefined || chunk.file_path) return undefined;
    const path = getTreePath(tree, meta.path_in_schema);
    if (path.length !== 2 && !isNumberListPath(path)) return undefined;
    if (path.length === 2 && path[1]?.element.repetition_type === "REPEATED") return undefined;
    columns.push({ name, path, meta });
  }
  const values = await Promise.all(columns.map((c) => headOfChunk(file, c, wanted)));
  const rows: Record<string, unknown>[] = Array.from({ length: wanted }, () => ({}));
  for (const [k, column] of columns.entries()) {
    const own = values[k];
    if (!own || own.length !== wanted) return undefined;
    for (let r = 0; r < wanted; r++) (rows[r] as Record<string, unknown>)[column.name] = own[r];
  }
  return rows;
}

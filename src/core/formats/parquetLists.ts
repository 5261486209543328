import type { ColumnMetaData, Compressors, DecodedArray, SchemaTree } from "hyparquet";
import {
  decompressPage,
  parquetHeader,
  readPlain,
  readRleBitPackedHybrid,
} from "./hyparquetInternals";

/*
 * A fast reader for the columns rollout tables are made of: a list of numbers per row (token ids,
 * logprobs, masks) in the standard 3-level LIST layout. hyparquet reads them exactly, but builds
 * a JS number array per level of every value and assembles rows through a generic nested-list
 * walk; on token columns that is most of the time spent indexing a file (and most of its garbage).
 * Here levels are decoded into byte arrays and each row's list is cut straight out of the page's
 * typed values. Anything else (other types, logical types, encodings) returns undefined and the
 * caller reads the column with hyparquet; the tests compare both readers on the same chunks.
 */

/** Physical types read here; INT64 becomes a number (a string beyond 2^53, as plainValue does). */
const NUMERIC = new Set(["INT32", "INT64", "FLOAT", "DOUBLE"]);

/** Plain integer annotations that change nothing about the value. */
const PLAIN_INTS = new Set([undefined, "INT_8", "INT_16", "INT_32", "INT_64"]);

/** True when `path` (root to leaf) is a 3-level list of one numeric leaf this reader decodes. */
export function isNumberListPath(path: readonly SchemaTree[]): boolean {
  if (path.length !== 4) return false;
  const [, list, repeated, leaf] = path;
  if (!list || !repeated || !leaf) return false;
  const isList =
    list.element.converted_type === "LIST" || list.element.logical_type?.type === "LIST";
  if (!isList || list.element.repetition_type === "REPEATED") return false;
  if (repeated.element.repetition_type !== "REPEATED" || repeated.children.length !== 1)
    return false;
  const { element } = leaf;
  if (element.repetition_type === "REPEATED" || !element.type || !NUMERIC.has(element.type))
    return false;
  const logical = element.logical_type;
  if (logical && !(logical.type === "INTEGER" && logical.isSigned)) return false;
  return PLAIN_INTS.has(element.converted_type);
}

const bitWidth = (max: number) => 32 - Math.clz32(max);

/** Levels of one page, as bytes (levels here are at most 3). */
function readLevels(
  view: DataView,
  offset: number,
  max: number,
  count: number,
  length?: number,
): { levels: Uint8Array; end: number } {
  const levels = new Uint8Array(count);
  if (max === 0) return { levels, end: offset };
  const reader = { view, offset };
  readRleBitPackedHybrid(reader, bitWidth(max), levels, length);
  return { levels, end: reader.offset };
}

function numberAt(values: DecodedArray, k: number): unknown {
  const v = values[k];
  if (typeof v !== "bigint") return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v.toString();
}

/** What a page decodes to: its levels and its non-null values. */
interface PageData {
  readonly rep: Uint8Array;
  readonly def: Uint8Array;
  readonly values: DecodedArray;
}

interface ChunkContext {
  readonly type: NonNullable<SchemaTree["element"]["type"]>;
  readonly maxDef: number;
  readonly codec: ColumnMetaData["codec"];
  readonly compressors: Compressors | undefined;
  dictionary: DecodedArray | undefined;
  readonly skipDictionaryLookup?: boolean;
}

/** Values of a page: PLAIN, or dictionary indices looked up. Undefined for other encodings. */
function pageValues(
  view: DataView,
  offset: number,
  encoding: string,
  count: number,
  context: ChunkContext,
): DecodedArray | undefined {
  const reader = { view, offset };
  if (encoding === "PLAIN") return readPlain(reader, context.type, count, undefined);
  if (encoding !== "PLAIN_DICTIONARY" && encoding !== "RLE_DICTIONARY") return undefined;
  const { dictionary } = context;
  if (!dictionary) return undefined;
  // Lengths only: the entries are not wanted, only the levels (the dictionary was checked).
  if (context.skipDictionaryLookup) return new Float64Array(0);
  const width = view.getUint8(reader.offset++);
  const indices = new Uint32Array(count);
  if (width > 0) readRleBitPackedHybrid(reader, width, indices, view.byteLength - reader.offset);
  const out = new (dictionary.constructor as new (n: number) => DecodedArray)(count);
  for (let k = 0; k < count; k++) out[k] = dictionary[indices[k] as number];
  return out;
}

function countValues(def: Uint8Array, maxDef: number): number {
  let n = 0;
  for (let k = 0; k < def.length; k++) if (def[k] === maxDef) n++;
  return n;
}

/** One data page (v1 or v2) of a list column, or undefined when this reader does not handle it. */
function readPage(
  bytes: Uint8Array,
  header: ReturnType<typeof parquetHeader>,
  context: ChunkContext,
): PageData | undefined {
  const { maxDef, codec, compressors } = context;
  const v2 = header.data_page_header_v2;
  if (v2) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = v2.num_values;
    const rep = readLevels(view, 0, 1, n, v2.repetition_levels_byte_length).levels;
    const levelsEnd = v2.repetition_levels_byte_length + v2.definition_levels_byte_length;
    const def = readLevels(
      view,
      v2.repetition_levels_byte_length,
      maxDef,
      n,
      v2.definition_levels_byte_length,
    ).levels;
    let page = bytes.subarray(levelsEnd);
    if (v2.is_compressed !== false) {
      page = decompressPage(page, header.uncompressed_page_size - levelsEnd, codec, compressors);
    }
    const pageView = new DataView(page.buffer, page.byteOffset, page.byteLength);
    const values = pageValues(pageView, 0, v2.encoding, countValues(def, maxDef), context);
    return values && { rep, def, values };
  }
  const v1 = header.data_page_header;
  if (!v1 || v1.repetition_level_encoding !== "RLE" || v1.definition_level_encoding !== "RLE")
    return undefined;
  const page = decompressPage(bytes, header.uncompressed_page_size, codec, compressors);
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const n = v1.num_values;
  const rep = readLevels(view, 0, 1, n);
  const def = readLevels(view, rep.end, maxDef, n);
  const values = pageValues(view, def.end, v1.encoding, countValues(def.levels, maxDef), context);
  return values && { rep: rep.levels, def: def.levels, values };
}

/** The definition levels of a 3-level number list and its chunk's decoding context. */
interface ListChunk {
  /** Below this level the list itself is null. */
  readonly listDef: number;
  /** Below this level (and not null) the list is empty. */
  readonly repeatedDef: number;
  readonly maxDef: number;
  readonly context: ChunkContext;
}

function listChunk(
  path: readonly SchemaTree[],
  meta: Pick<ColumnMetaData, "codec">,
  compressors: Compressors | undefined,
  skipDictionaryLookup: boolean,
): ListChunk | undefined {
  const leaf = path[3]?.element;
  if (!leaf?.type || !isNumberListPath(path)) return undefined;
  // Definition levels: the list itself (when optional), the repeated level, the element (when optional).
  const listDef = path[1]?.element.repetition_type === "OPTIONAL" ? 1 : 0;
  const repeatedDef = listDef + 1;
  const maxDef = repeatedDef + (leaf.repetition_type === "OPTIONAL" ? 1 : 0);
  const context: ChunkContext = {
    type: leaf.type,
    maxDef,
    codec: meta.codec,
    compressors,
    dictionary: undefined,
    skipDictionaryLookup,
  };
  return { listDef, repeatedDef, maxDef, context };
}

/**
 * The data pages of a column chunk (`bytes`, dictionary page first when there is one), in order,
 * decoded; the dictionary page goes into `context.dictionary` on the way. An undefined page is one
 * this reader does not decode: the caller gives up on the chunk.
 */
function* chunkPages(
  bytes: Uint8Array,
  context: ChunkContext,
): Generator<(PageData & { readonly encoding: string | undefined }) | undefined> {
  const reader = {
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    offset: 0,
  };
  while (reader.offset < bytes.byteLength - 1) {
    const header = parquetHeader(reader);
    const body = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type === "DICTIONARY_PAGE") {
      const dictionaryPage = header.dictionary_page_header;
      if (!dictionaryPage) {
        yield undefined;
        return;
      }
      const { codec, compressors } = context;
      const page = decompressPage(body, header.uncompressed_page_size, codec, compressors);
      const pageReader = {
        view: new DataView(page.buffer, page.byteOffset, page.byteLength),
        offset: 0,
      };
      context.dictionary = readPlain(
        pageReader,
        context.type,
        dictionaryPage.num_values,
        undefined,
      );
      continue;
    }
    if (header.type !== "DATA_PAGE" && header.type !== "DATA_PAGE_V2") continue;
    const data = readPage(body, header, context);
    const encoding = header.data_page_header_v2?.encoding ?? header.data_page_header?.encoding;
    yield data && { ...data, encoding };
  }
}

/**
 * Every row of one column chunk of a 3-level number list (`path`, see isNumberListPath): its list,
 * or null for a null list; a null element is null. `bytes` is the whole chunk (dictionary page
 * first when there is one). Undefined when a page uses something this reader does not decode.
 */
export function readNumberListChunk(
  bytes: Uint8Array,
  path: readonly SchemaTree[],
  meta: Pick<ColumnMetaData, "codec">,
  compressors?: Compressors,
): (unknown[] | null)[] | undefined {
  const chunk = listChunk(path, meta, compressors, false);
  if (!chunk) return undefined;
  const { listDef, repeatedDef, maxDef, context } = chunk;
  const rows: (unknown[] | null)[] = [];
  let current: unknown[] | null = null;
  for (const data of chunkPages(bytes, context)) {
    if (!data) return undefined;
    const { rep, def, values } = data;
    const isBig = values instanceof BigInt64Array;
    let v = 0;
    let k = 0;
    while (k < def.length) {
      const d = def[k] as number;
      if (rep[k] !== 0) {
        // The page continues the last row of the previous one.
        if (current === null) return undefined;
        current.push(d === maxDef ? numberAt(values, v++) : null);
        k += 1;
        continue;
      }
      // A new row: a null list, an empty one, or a list starting here. Its length is known first,
      // so the list is built at its size (no growing copies of long token lists).
      let end = k + 1;
      while (end < def.length && rep[end] !== 0) end++;
      if (d < listDef) current = null;
      else if (d < repeatedDef) current = [];
      else {
        current = new Array(end - k);
        if (isBig) {
          for (let j = k; j < end; j++)
            current[j - k] = def[j] === maxDef ? numberAt(values, v++) : null;
        } else {
          // Numbers as they are (the hot loop of every token and logprob column).
          for (let j = k; j < end; j++) current[j - k] = def[j] === maxDef ? values[v++] : null;
        }
      }
      rows.push(current);
      k = end;
    }
  }
  return rows;
}

/**
 * One column chunk of a number list as flat typed arrays instead of a JS array per row: row r has
 * starts[r + 1] - starts[r] entries, a null list is flagged in `nullList`, null entries are
 * counted in `nullEntries`. With `values`, the entries themselves (a null one NaN); without, only
 * whether every non-null entry is a token id (a non-negative safe integer), checked on the page's
 * typed values or once on the dictionary, never copied. What per-row summaries need (lengths,
 * sums, validity) without a JS array per row. Undefined where readNumberListChunk is.
 */
export interface NumberListColumn {
  readonly rows: number;
  readonly starts: Int32Array;
  /** Set when read with `values`. */
  readonly values: Float64Array | undefined;
  /** Every non-null entry is a non-negative safe integer. */
  readonly tokenIds: boolean;
  readonly nullList: Uint8Array;
  readonly nullEntries: Int32Array;
}

/** True when every entry of `values` is a non-negative safe integer. */
function allTokenIds(values: DecodedArray): boolean {
  if (values instanceof Int32Array) {
    for (let k = 0; k < values.length; k++) if ((values[k] as number) < 0) return false;
    return true;
  }
  for (let k = 0; k < values.length; k++) {
    const x = values[k];
    const n = typeof x === "bigint" ? Number(x) : (x as number);
    if (!(n >= 0) || !Number.isSafeInteger(n) || (typeof x === "bigint" && BigInt(n) !== x))
      return false;
  }
  return true;
}

export function readNumberListColumn(
  bytes: Uint8Array,
  path: readonly SchemaTree[],
  meta: Pick<ColumnMetaData, "codec" | "num_values">,
  options: { readonly values: boolean; readonly compressors?: Compressors },
): NumberListColumn | undefined {
  // Without values, the dictionary is checked once and indices are never looked up.
  const chunk = listChunk(path, meta, options.compressors, !options.values);
  if (!chunk) return undefined;
  const { listDef, repeatedDef, maxDef, context } = chunk;
  let tokenIds = true;
  const starts: number[] = [];
  const nullList: number[] = [];
  const nullEntries: number[] = [];
  const dst = options.values ? new Float64Array(Number(meta.num_values)) : undefined;
  let at = 0;
  for (const data of chunkPages(bytes, context)) {
    if (!data) return undefined;
    const { rep, def, values, encoding } = data;
    if (!options.values && encoding === "PLAIN") tokenIds &&= allTokenIds(values);
    if (dst && at + def.length > dst.length) return undefined;
    let v = 0;
    for (let k = 0; k < def.length; k++) {
      const d = def[k] as number;
      if (rep[k] === 0) {
        // A new row: a null list, an empty one, or a list starting here.
        starts.push(at);
        nullList.push(d < listDef ? 1 : 0);
        nullEntries.push(0);
        if (d < repeatedDef) continue;
      } else if (starts.length === 0) return undefined;
      if (d === maxDef) {
        if (dst) {
          const x = values[v++];
          const n = typeof x === "bigint" ? Number(x) : (x as number);
          // Beyond 2^53 the exact reader keeps a string: left to it.
          if (typeof x === "bigint" && !Number.isSafeInteger(n)) return undefined;
          dst[at] = n;
        }
      } else {
        if (dst) dst[at] = Number.NaN;
        const last = nullEntries.length - 1;
        nullEntries[last] = (nullEntries[last] ?? 0) + 1;
      }
      at++;
    }
  }
  // A chunk has at most one dictionary: its entries are token ids or not, whichever pages use it.
  if (!options.values && context.dictionary) tokenIds &&= allTokenIds(context.dictionary);
  starts.push(at);
  return {
    rows: nullList.length,
    starts: Int32Array.from(starts),
    values: dst?.subarray(0, at),
    tokenIds,
    nullList: Uint8Array.from(nullList),
    nullEntries: Int32Array.from(nullEntries),
  };
}

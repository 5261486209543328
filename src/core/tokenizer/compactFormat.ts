/**
 * The compact, pre-digested form of a byte-level BPE tokenizer.json: what the drift checks need
 * (every token's bytes, flags, the piece table and the merges by id, the pipeline settings) in one
 * binary blob that loads without JSON.parse of a 9 MB vocabulary and builds no table at load. Built once (at pack time for the
 * bundled tokenizers, on first use for a folder) by `buildCompactTokenizer`; read by
 * `readCompactTokenizer`, which only makes typed-array views. The same bytes serve Node and the
 * browser's workers (core/tokenizer/compactTokenizer.ts turns them into a Tokenizer).
 *
 * Layout (little-endian): "RLTKNZR1", u32 0x01020304 (byte order), u32 header length, the header
 * (UTF-8 JSON: counts, settings, where each section is), then 8-byte aligned sections:
 * - `offsets` u32 × (vocabSize + 1): token i's bytes are pool[offsets[i], offsets[i + 1]);
 * - `flags` u8 × vocabSize (FLAG_*);
 * - `pool` u8: token bytes, then the byte spelling of added tokens (`addedKeys`);
 * - `sorted` i32: the ids of the piece table (the library's `tokens_to_ids` as byte strings,
 *   added tokens over the vocabulary) sorted by their bytes, for binary search;
 * - `mergeStart` u32 × (vocabSize + 1), `mergeRight`, `mergeRank`, `mergeId` u32 × merges: the
 *   merges grouped by left id (mergeStart[left]..mergeStart[left + 1]), sorted by right id, with
 *   rank (lower merges first) and the merged piece's id.
 */

import { idMergesOf } from "./bpeWord";
import { utf8Encode } from "./utf8";
import { utf8Decode } from "./utf8Text";
import { byteLevelChars, vocabPieceBytes } from "./vocabBytes";

/** Bumped whenever the layout or what is derived changes: an old blob is then rebuilt. */
export const COMPACT_FORMAT_VERSION = 1;
const MAGIC = "RLTKNZR1";
const BYTE_ORDER = 0x01020304;

export const FLAG_PRESENT = 1;
export const FLAG_ADDED = 2;
export const FLAG_SPECIAL = 4;
/** Decoded as its text (an added token, or a piece spelled like one), not as bytes. */
export const FLAG_LITERAL = 8;

/** One added token as tokenizer.json lists it (the settings the library's splitter reads). */
export interface CompactAddedToken {
  readonly id: number;
  readonly content: string;
  readonly special: boolean;
  /** Matched on normalized text (the library's default: not special). */
  readonly normalized: boolean;
}

const SECTION_NAMES = [
  "offsets",
  "flags",
  "pool",
  "sorted",
  "mergeStart",
  "mergeRight",
  "mergeRank",
  "mergeId",
] as const;
type SectionName = (typeof SECTION_NAMES)[number];

/** The JSON header of a compact blob. */
export interface CompactHeader {
  readonly version: number;
  /** Where the blob came from (file size, package version...): the loader's staleness check. */
  readonly source: unknown;
  /** tokenizer.json without vocabulary and merges: the round-trip proof reads it. */
  readonly definition: Record<string, unknown>;
  /** Set when the compact form cannot stand in for the library (then it holds no tables). */
  readonly unusable?: string;
  readonly vocabSize: number;
  readonly ignoreMerges: boolean;
  /** Id of each single-byte piece. */
  readonly byteIds: readonly number[];
  readonly added: readonly CompactAddedToken[];
  /** Text of literal pieces that are not added tokens (a piece spelled exactly like one). */
  readonly literals: readonly (readonly [number, string])[];
  /** [id, start, length]: the bytes in `pool` whose byte-level spelling is added token id's text. */
  readonly addedKeys: readonly (readonly [number, number, number])[];
  /** [byte offset, byte length] of each section. */
  readonly sections?: Readonly<Record<SectionName, readonly [number, number]>>;
}

/** A compact blob, read: the header and views over its sections (no copies). */
export interface CompactTokenizerData {
  readonly header: CompactHeader;
  readonly offsets: Uint32Array;
  readonly flags: Uint8Array;
  readonly pool: Uint8Array;
  readonly sorted: Int32Array;
  readonly mergeStart: Uint32Array;
  readonly mergeRight: Uint32Array;
  readonly mergeRank: Uint32Array;
  readonly mergeId: Uint32Array;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The pipeline of tokenizer.json without the vocabulary and merges (the fast round trip's proof
 * reads only the settings; keeping the whole parsed file would hold tens of MB per tokenizer).
 */
export function pipelineDefinition(
  tokenizerJson: Record<string, unknown>,
): Record<string, unknown> {
  const {
    vocab: _vocab,
    merges: _merges,
    ...model
  } = isRecord(tokenizerJson.model) ? tokenizerJson.model : {};
  return { ...tokenizerJson, model };
}

/** The added tokens as @huggingface/tokenizers reads them (`normalized` defaults to !special). */
function addedTokensOf(definition: Record<string, unknown>): CompactAddedToken[] | string {
  const list = definition.added_tokens ?? [];
  if (!Array.isArray(list)) return "added_tokens is not a list";
  const out: CompactAddedToken[] = [];
  for (const [i, t] of list.entries()) {
    if (!isRecord(t) || typeof t.content !== "string" || !Number.isInteger(t.id)) {
      return `added_tokens[${i}] has no integer id and string content`;
    }
    const special = t.special === true;
    const normalized = typeof t.normalized === "boolean" ? t.normalized : !special;
    out.push({ id: t.id as number, content: t.content, special, normalized });
  }
  return out;
}

/** The raw bytes a byte-level piece spells, or undefined when a char is outside GPT-2's table. */
export function byteLevelBytes(piece: string, table: Int16Array): Uint8Array | undefined {
  const out = new Uint8Array(piece.length);
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    const b = c < table.length ? (table[c] ?? -1) : -1;
    if (b < 0) return undefined;
    out[i] = b;
  }
  return out;
}

/** GPT-2's char -> byte table, indexed by char code (-1: not a byte-level char). */
export function byteLevelInverse(): Int16Array {
  const chars = byteLevelChars();
  const table = new Int16Array(0x144).fill(-1);
  chars.forEach((ch, b) => {
    table[ch.charCodeAt(0)] = b;
  });
  return table;
}

interface Digested {
  readonly vocabSize: number;
  readonly ignoreMerges: boolean;
  readonly byteIds: number[];
  readonly added: CompactAddedToken[];
  readonly literals: [number, string][];
  readonly pieces: (Uint8Array | undefined)[];
  readonly flags: Uint8Array;
  readonly merges: MergeTables;
}

/** Why the compact form cannot reproduce the library on this model, or the model digested. */
function digest(json: Record<string, unknown>, added: CompactAddedToken[]): Digested | string {
  const model = json.model;
  if (!isRecord(model) || model.type !== "BPE") return "the model is not BPE";
  if (!isRecord(json.decoder) || json.decoder.type !== "ByteLevel") {
    return "the decoder is not ByteLevel";
  }
  if (model.end_of_word_suffix || model.continuing_subword_suffix) {
    return "the BPE model has a word suffix";
  }
  const vocab = model.vocab;
  if (!isRecord(vocab)) return "model.vocab is not an object";
  // Piece text -> id as the library keeps it: the vocabulary, then added tokens over it.
  const idOf = new Map<string, number>();
  const pieceOf: string[] = [];
  for (const [piece, id] of Object.entries(vocab)) {
    if (!Number.isInteger(id) || (id as number) < 0) return `model.vocab[${piece}] is not an id`;
    idOf.set(piece, id as number);
    pieceOf[id as number] = piece;
  }
  const addedContents = new Set<string>();
  for (const t of added) {
    idOf.set(t.content, t.id);
    pieceOf[t.id] = t.content;
    addedContents.add(t.content);
  }
  if (new Set(idOf.values()).size !== idOf.size) return "two pieces share one id";
  const table = byteLevelInverse();
  const vocabSize = pieceOf.length;
  const flags = new Uint8Array(vocabSize);
  const pieces: (Uint8Array | undefined)[] = new Array(vocabSize);
  const literals: [number, string][] = [];
  for (const t of added) flags[t.id] = FLAG_PRESENT | FLAG_ADDED | (t.special ? FLAG_SPECIAL : 0);
  for (let id = 0; id < vocabSize; id++) {
    const piece = pieceOf[id];
    if (piece === undefined) continue;
    if ((flags[id] ?? 0) & FLAG_ADDED) {
      flags[id] = (flags[id] ?? 0) | FLAG_LITERAL;
      pieces[id] = utf8Encode(piece);
      continue;
    }
    flags[id] = FLAG_PRESENT;
    if (addedContents.has(piece)) {
      // The library's decoder writes any piece spelled like an added token as that text.
      flags[id] = FLAG_PRESENT | FLAG_LITERAL;
      literals.push([id, piece]);
      pieces[id] = vocabPieceBytes(piece, "byte-level");
      continue;
    }
    const bytes = byteLevelBytes(piece, table);
    if (bytes === undefined) return `piece ${JSON.stringify(piece)} is not byte-level`;
    pieces[id] = bytes;
  }
  const byteIds: number[] = [];
  for (const ch of byteLevelChars()) {
    const id = idOf.get(ch);
    if (id === undefined) return `the byte piece ${JSON.stringify(ch)} is not in the vocabulary`;
    byteIds.push(id);
  }
  const merges = digestMerges(model.merges, idOf, vocabSize);
  if (typeof merges === "string") return merges;
  const ignoreMerges = model.ignore_merges === true;
  return { vocabSize, ignoreMerges, byteIds, added, literals, pieces, flags, merges };
}

interface MergeTables {
  readonly mergeStart: Uint32Array;
  readonly mergeRight: Uint32Array;
  readonly mergeRank: Uint32Array;
  readonly mergeId: Uint32Array;
}

/**
 * The merges by left id (then right id), with their rank and merged id. A merge whose parts are
 * not pieces can never apply (every reachable piece is in the vocabulary) and is left out; a
 * later duplicate outranks an earlier one, as in the library's rank map.
 */
function digestMerges(
  raw: unknown,
  idOf: ReadonlyMap<string, number>,
  vocabSize: number,
): MergeTables | string {
  if (!Array.isArray(raw)) return "model.merges is not a list";
  const byId = idMergesOf(raw as (string | string[])[], idOf);
  if (typeof byId === "string") return byId;
  // One entry per pair, the later rank winning (the library's rank map).
  const byPair = new Map<number, [number, number, number, number]>();
  for (let k = 0; k < byId.left.length; k++) {
    const left = byId.left[k] as number;
    const right = byId.right[k] as number;
    byPair.set(left * vocabSize + right, [
      left,
      right,
      byId.rank[k] as number,
      byId.merged[k] as number,
    ]);
  }
  const list = [...byPair.values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const tables: MergeTables = {
    mergeStart: new Uint32Array(vocabSize + 1),
    mergeRight: new Uint32Array(list.length),
    mergeRank: new Uint32Array(list.length),
    mergeId: new Uint32Array(list.length),
  };
  list.forEach(([left, right, rank, merged], i) => {
    tables.mergeStart[left + 1] = i + 1;
    tables.mergeRight[i] = right;
    tables.mergeRank[i] = rank;
    tables.mergeId[i] = merged;
  });
  for (let id = 1; id <= vocabSize; id++) {
    tables.mergeStart[id] = Math.max(tables.mergeStart[id] ?? 0, tables.mergeStart[id - 1] ?? 0);
  }
  return tables;
}

/** -1, 0 or 1 as bytes a[as, ae) sort before, with or after b[bs, be). */
export function compareBytes(
  a: Uint8Array,
  as: number,
  ae: number,
  b: Uint8Array,
  bs: number,
  be: number,
): number {
  const n = Math.min(ae - as, be - bs);
  for (let i = 0; i < n; i++) {
    const d = (a[as + i] ?? 0) - (b[bs + i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return Math.sign(ae - as - (be - bs));
}

const align8 = (n: number) => (n + 7) & ~7;

function headerOnly(base: Omit<CompactHeader, keyof Settings>, reason: string): Uint8Array {
  return assemble({ ...base, ...EMPTY_SETTINGS, unusable: reason }, []);
}

type Settings = Pick<
  CompactHeader,
  "vocabSize" | "ignoreMerges" | "byteIds" | "added" | "literals" | "addedKeys"
>;
const EMPTY_SETTINGS: Settings = {
  vocabSize: 0,
  ignoreMerges: false,
  byteIds: [],
  added: [],
  literals: [],
  addedKeys: [],
};

/**
 * The compact blob of a parsed tokenizer.json. `source` is stored as given (the loader's
 * staleness key). A tokenizer the compact form cannot reproduce gets a header-only blob saying why.
 */
export function buildCompactTokenizer(tokenizerJson: unknown, source: unknown = null): Uint8Array {
  if (!isRecord(tokenizerJson)) throw new Error("tokenizer.json must be a JSON object");
  const definition = pipelineDefinition(tokenizerJson);
  const base = { version: COMPACT_FORMAT_VERSION, source, definition };
  const added = addedTokensOf(definition);
  if (typeof added === "string") return headerOnly(base, added);
  const digested = digest(tokenizerJson, added);
  if (typeof digested === "string") return headerOnly(base, digested);
  const { pieces, flags, merges, ...rest } = digested;
  const { vocabSize } = rest;
  const offsets = new Uint32Array(vocabSize + 1);
  let total = 0;
  for (let id = 0; id < vocabSize; id++) {
    offsets[id] = total;
    total += pieces[id]?.length ?? 0;
  }
  offsets[vocabSize] = total;
  // Added tokens' byte spellings follow the token bytes: the piece table's keys for them.
  const inverse = byteLevelInverse();
  const spelled = added.map((t) => byteLevelBytes(t.content, inverse));
  const addedKeys: [number, number, number][] = [];
  const keyBytes: Uint8Array[] = [];
  let end = total;
  added.forEach((t, k) => {
    const bytes = spelled[k];
    if (!bytes) return;
    addedKeys.push([t.id, end, bytes.length]);
    keyBytes.push(bytes);
    end += bytes.length;
  });
  const pool = new Uint8Array(end);
  pieces.forEach((bytes, id) => {
    if (bytes) pool.set(bytes, offsets[id] ?? 0);
  });
  addedKeys.forEach(([, start], k) => {
    pool.set(keyBytes[k] ?? new Uint8Array(0), start);
  });
  const sorted = sortedPieceTable(vocabSize, offsets, flags, pool, addedKeys);
  const bytesOf = (a: Uint32Array | Int32Array | Uint8Array) =>
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const parts: [SectionName, Uint8Array][] = [
    ["offsets", bytesOf(offsets)],
    ["flags", flags],
    ["pool", pool],
    ["sorted", bytesOf(sorted)],
    ["mergeStart", bytesOf(merges.mergeStart)],
    ["mergeRight", bytesOf(merges.mergeRight)],
    ["mergeRank", bytesOf(merges.mergeRank)],
    ["mergeId", bytesOf(merges.mergeId)],
  ];
  return assemble({ ...base, ...rest, addedKeys }, parts);
}

/**
 * The piece table: every key of the library's `tokens_to_ids` as bytes (vocabulary pieces, then
 * added tokens by their byte spelling, a later one replacing an earlier one), sorted by bytes.
 */
function sortedPieceTable(
  vocabSize: number,
  offsets: Uint32Array,
  flags: Uint8Array,
  pool: Uint8Array,
  addedKeys: readonly (readonly [number, number, number])[],
): Int32Array {
  const byKey = new Map<string, [number, number, number]>();
  const keyOf = (start: number, length: number) =>
    String.fromCharCode(...pool.subarray(start, start + length));
  for (let id = 0; id < vocabSize; id++) {
    const f = flags[id] ?? 0;
    if ((f & FLAG_PRESENT) === 0 || (f & (FLAG_ADDED | FLAG_LITERAL)) !== 0) continue;
    const start = offsets[id] ?? 0;
    const length = (offsets[id + 1] ?? 0) - start;
    byKey.set(keyOf(start, length), [id, start, length]);
  }
  for (const [id, start, length] of addedKeys) byKey.set(keyOf(start, length), [id, start, length]);
  const entries = [...byKey.values()].sort((x, y) =>
    compareBytes(pool, x[1], x[1] + x[2], pool, y[1], y[1] + y[2]),
  );
  return Int32Array.from(entries, (e) => e[0]);
}

/** Header + 8-byte aligned sections in one buffer; the header records where each section is. */
function assemble(header: CompactHeader, parts: readonly [SectionName, Uint8Array][]): Uint8Array {
  // The header's length depends on the offsets it lists: lay out, then settle (digits may grow).
  let headerBytes = utf8Encode(JSON.stringify(header));
  let full = header;
  for (let round = 0; round < 4 && parts.length > 0; round++) {
    let at = align8(16 + headerBytes.length);
    const sections = {} as Record<SectionName, [number, number]>;
    for (const [name, bytes] of parts) {
      sections[name] = [at, bytes.length];
      at = align8(at + bytes.length);
    }
    full = { ...header, sections };
    const next = utf8Encode(JSON.stringify(full));
    const settled = align8(16 + next.length) === align8(16 + headerBytes.length);
    headerBytes = next;
    if (settled) break;
  }
  let end = align8(16 + headerBytes.length);
  for (const [name, bytes] of parts) {
    end = Math.max(end, (full.sections?.[name]?.[0] ?? 0) + bytes.length);
  }
  const out = new Uint8Array(align8(end));
  for (let i = 0; i < MAGIC.length; i++) out[i] = MAGIC.charCodeAt(i);
  const view = new DataView(out.buffer);
  view.setUint32(8, BYTE_ORDER, true);
  view.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  for (const [name, bytes] of parts) out.set(bytes, full.sections?.[name]?.[0] ?? 0);
  return out;
}

/**
 * Reads a compact blob: typed-array views over its sections, no copies (unless `bytes` is not
 * 8-byte aligned). Throws, saying why, when `bytes` is not a blob of this version.
 */
export function readCompactTokenizer(bytes: Uint8Array): CompactTokenizerData {
  const buf = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const magic = String.fromCharCode(...buf.subarray(0, MAGIC.length));
  if (buf.length < 16 || magic !== MAGIC) throw new Error("not a compact tokenizer (bad magic)");
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  // The sections are read as native typed arrays: a big-endian machine would misread them.
  if (new Uint32Array(buf.buffer, buf.byteOffset + 8, 1)[0] !== BYTE_ORDER) {
    throw new Error("compact tokenizer: written with another byte order");
  }
  const length = view.getUint32(12, true);
  const header = JSON.parse(headerText(buf.subarray(16, 16 + length))) as CompactHeader;
  if (header.version !== COMPACT_FORMAT_VERSION) {
    throw new Error(
      `compact tokenizer: format version ${header.version}, expected ${COMPACT_FORMAT_VERSION}`,
    );
  }
  const range = (name: SectionName): [number, number] => {
    const [start, size] = header.sections?.[name] ?? [0, 0];
    if (start + size > buf.length) throw new Error(`compact tokenizer: truncated (${name})`);
    return [buf.byteOffset + start, size];
  };
  const u8 = (name: SectionName) => new Uint8Array(buf.buffer, ...range(name));
  const u32 = (name: SectionName) => {
    const [start, size] = range(name);
    return new Uint32Array(buf.buffer, start, size / 4);
  };
  const [sortedStart, sortedSize] = range("sorted");
  return {
    header,
    offsets: u32("offsets"),
    flags: u8("flags"),
    pool: u8("pool"),
    sorted: new Int32Array(buf.buffer, sortedStart, sortedSize / 4),
    mergeStart: u32("mergeStart"),
    mergeRight: u32("mergeRight"),
    mergeRank: u32("mergeRank"),
    mergeId: u32("mergeId"),
  };
}

/** UTF-8 text of the header (JSON may hold any character; usually it is ASCII). */
function headerText(bytes: Uint8Array): string {
  if (bytes.some((b) => b >= 0x80)) return utf8Decode(bytes);
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return s;
}

import { PreTokenScanner } from "./preTokenScanner";
import type { Tokenizer } from "./types";
import { utf8CharLength, utf8CodePoint } from "./utf8";
import { utf8Decode } from "./utf8Text";

/** A faster `encode(decode(ids))` giving the very same ids (the same array when unchanged). */
export interface RoundTripAccelerator {
  roundTrip(ids: readonly number[]): readonly number[];
}

/**
 * What the round-trip fast path needs to know about a byte-level BPE tokenizer whose encode is:
 * split out added tokens -> normalizer (none or NFC) -> the Qwen/Llama-3 split regex -> BPE per
 * pre-token. Built from the tokenizer by `roundTripPlanFor` (roundTripPlan.ts).
 */
export interface FastRoundTripSpec {
  /** Longest digit run in one pre-token: 1 for Qwen2/3, 3 for Llama-3. */
  readonly digitRun: number;
  /** True when the normalizer is NFC; false when there is none. */
  readonly nfc: boolean;
  /** Canonical ids of ONE pre-token given as its UTF-8 bytes: the BPE model alone. */
  encodeWord(bytes: Uint8Array): readonly number[];
}

const UNKNOWN = 0;
const CANONICAL = 1;
const NOT_CANONICAL = 2;

/**
 * `encode(decode(ids))` without re-encoding what provably round-trips: the recorded bytes are cut
 * where the real encoder cuts them (added tokens, then pre-tokens), and the ids inside every
 * pre-token are compared with that pre-token's canonical encoding, cached by id sequence. Most
 * pre-tokens are one token, so the common case is a table lookup per token. A run between added
 * tokens it cannot vouch for (ill-formed UTF-8, text the normalizer would change, a token crossing
 * a pre-token edge, a non-canonical pre-token) is decoded and encoded for real; an added token's
 * text spelled with ordinary pieces sends the whole sequence through the real encoder.
 */
export function createRoundTripAccelerator(
  tokenizer: Tokenizer,
  spec: FastRoundTripSpec,
): RoundTripAccelerator {
  const vocabSize = tokenizer.vocabSize;
  const added = indexAddedTokens(tokenizer);
  const { isAdded } = added;

  // Every token's bytes in one flat pool (filled on first use): copying a token is then a loop
  // over one typed array, with no per-token object.
  let pool = new Uint8Array(1 << 16);
  let poolUsed = 0;
  const poolStart = new Int32Array(vocabSize).fill(-1);
  const poolLength = new Int32Array(vocabSize);
  const canonical = new CanonicalCache(spec, vocabSize);
  let buf = new Uint8Array(1 << 16);
  let offsets = new Int32Array(1 << 12);

  /** Start of token `id`'s bytes in `pool` (its length is in `poolLength`). */
  const pooled = (id: number): number => {
    const start = poolStart[id] ?? -1;
    if (start >= 0) return start;
    const b = tokenizer.tokenBytes(id);
    if (poolUsed + b.length > pool.length) {
      const bigger = new Uint8Array(Math.max(2 * pool.length, poolUsed + b.length));
      bigger.set(pool.subarray(0, poolUsed));
      pool = bigger;
    }
    pool.set(b, poolUsed);
    poolStart[id] = poolUsed;
    poolLength[id] = b.length;
    poolUsed += b.length;
    return poolUsed - b.length;
  };

  /**
   * Round trip of the ordinary tokens [s, e) between two added tokens, appended to `out`, or
   * false when the scanner cannot vouch for the text (the caller then encodes it for real).
   * With `out` undefined it only answers "is it unchanged?" and allocates nothing.
   */
  const sectionRoundTrip = (
    ids: readonly number[],
    s: number,
    e: number,
    out: number[] | undefined,
  ): boolean => {
    const from = offsets[s] ?? 0;
    const to = offsets[e] ?? 0;
    if (spec.nfc && !isNfcStable(buf, from, to)) return false;
    const scanner = new PreTokenScanner(buf, to, spec.digitRun);
    let p = from;
    let t = s;
    while (p < to) {
      const q = scanner.next(p);
      if (q < 0) return false;
      // Recorded tokens [t, u) cover the pre-token when one ends exactly at q.
      let u = t;
      while (u < e && (offsets[u] ?? 0) < q) u++;
      const isAligned = (offsets[u] ?? 0) === q && (offsets[t] ?? 0) === p;
      if (isAligned && canonical.isCanonical(ids, t, u, buf, p, q)) {
        if (out) for (let k = t; k < u; k++) out.push(ids[k] ?? 0);
      } else if (out) {
        for (const id of canonical.encodeWord(buf, p, q)) out.push(id);
      } else {
        return false;
      }
      p = q;
      // u is the first token starting at or after q; if one crosses q, the next pre-token is
      // misaligned too (only reached when building `out`).
      t = u;
    }
    return true;
  };

  /**
   * Copies the ids' bytes into `buf` and their offsets into `offsets`; returns the number of bytes
   * copied, or -1 when an id is outside the vocabulary.
   */
  const loadBytes = (ids: readonly number[]): number => {
    const n = ids.length;
    if (offsets.length < n + 1) offsets = new Int32Array(2 * n + 2);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const id = ids[i] ?? -1;
      if (id < 0 || id >= vocabSize) return -1;
      const start = pooled(id);
      const length = poolLength[id] ?? 0;
      if (total + length > buf.length) {
        const bigger = new Uint8Array(Math.max(2 * buf.length, total + length));
        bigger.set(buf.subarray(0, total));
        buf = bigger;
      }
      offsets[i] = total;
      for (let k = 0; k < length; k++) buf[total + k] = pool[start + k] ?? 0;
      total += length;
    }
    offsets[n] = total;
    return total;
  };

  const plainRoundTrip = (ids: readonly number[]) => tokenizer.encode(tokenizer.decode(ids));

  /**
   * Round trip of the ordinary tokens [s, e) between two added tokens, appended to `out`. Returns
   * `out`, or (with `out` undefined) undefined while everything so far is unchanged, or a new
   * array holding ids [0, s) and the changed round trip once this run is the first to differ.
   */
  const fastSection = (
    ids: readonly number[],
    s: number,
    e: number,
    out: number[] | undefined,
  ): number[] | undefined => {
    if (e > s && !sectionRoundTrip(ids, s, e, undefined)) {
      const built = out ?? ids.slice(0, s);
      const mark = built.length;
      if (!sectionRoundTrip(ids, s, e, built)) {
        built.length = mark;
        for (const id of plainRoundTrip(ids.slice(s, e))) built.push(id);
      }
      return built;
    }
    if (out) for (let k = s; k < e; k++) out.push(ids[k] ?? 0);
    return out;
  };

  return {
    roundTrip(ids) {
      const total = loadBytes(ids);
      if (total < 0) return plainRoundTrip(ids);
      // An added token spelled across or inside ordinary text changes how the text around it
      // splits. A recorded added token no stray text overlaps is still matched as itself by the
      // leftmost-longest splitter, so it still cuts the text: only the runs between two such
      // tokens that hold stray text go through the real encoder.
      const stray = strayAddedText(added, buf, offsets, ids, total);
      return roundTripRuns(ids, offsets, isAdded, stray, fastSection, plainRoundTrip);
    },
  };
}

/**
 * The round trip of `ids`, run by run: added tokens always split the text (and have ASCII
 * content, so no ill-formed byte run spans one), so each run of ordinary tokens between them
 * round-trips on its own (`fastSection`); a run holding stray added-token text (byte spans
 * `stray`) goes through the real encoder (`plainRoundTrip`). `ids` itself when nothing changes.
 */
function roundTripRuns(
  ids: readonly number[],
  offsets: Int32Array,
  isAdded: Uint8Array,
  stray: readonly number[],
  fastSection: (
    ids: readonly number[],
    s: number,
    e: number,
    out: number[] | undefined,
  ) => number[] | undefined,
  plainRoundTrip: (ids: readonly number[]) => readonly number[],
): readonly number[] {
  let out: number[] | undefined;
  let s = 0;
  // Start of the current run between two clean added tokens, when it holds stray text.
  let group = -1;
  for (let i = 0; i <= ids.length; i++) {
    if (i < ids.length && isAdded[ids[i] ?? 0] === 0) continue;
    const isBoundary =
      i === ids.length ||
      stray.length === 0 ||
      !overlapsStray(stray, offsets[i] ?? 0, offsets[i + 1] ?? 0);
    if (!isBoundary) {
      if (group < 0) group = s;
      s = i + 1;
      continue;
    }
    if (group < 0 && overlapsStray(stray, offsets[s] ?? 0, offsets[i] ?? 0)) group = s;
    if (group >= 0) {
      out ??= ids.slice(0, group);
      for (const id of plainRoundTrip(ids.slice(group, i))) out.push(id);
      group = -1;
    } else {
      out = fastSection(ids, s, i, out);
    }
    if (i < ids.length && out) out.push(ids[i] ?? 0);
    s = i + 1;
  }
  return out ?? ids;
}

/** The tokenizer's added tokens, indexed for the stray-text scan. */
interface AddedTokens {
  /** 1 at an added token's id. */
  readonly isAdded: Uint8Array;
  /** Added tokens' bytes by their first byte. */
  readonly byFirstByte: ReadonlyMap<number, readonly Uint8Array[]>;
  /** 1 at a byte some added token starts with. */
  readonly startsAdded: Uint8Array;
  /** The one first byte every added token shares, or -1. */
  readonly onlyFirst: number;
}

function indexAddedTokens(tokenizer: Tokenizer): AddedTokens {
  const vocabSize = tokenizer.vocabSize;
  const isAdded = new Uint8Array(vocabSize);
  const byFirstByte = new Map<number, Uint8Array[]>();
  for (let id = 0; id < vocabSize; id++) {
    if (!tokenizer.isAdded(id)) continue;
    isAdded[id] = 1;
    const bytes = tokenizer.tokenBytes(id);
    const first = bytes[0];
    if (first === undefined) continue;
    if (bytes.some((b) => b >= 0x80)) {
      throw new Error(
        `${tokenizer.id}: added token ${id} is not ASCII; the fast path assumes it is`,
      );
    }
    const list = byFirstByte.get(first) ?? [];
    list.push(bytes);
    byFirstByte.set(first, list);
  }
  const startsAdded = new Uint8Array(256);
  for (const b of byFirstByte.keys()) startsAdded[b] = 1;
  const onlyFirst = byFirstByte.size === 1 ? ([...byFirstByte.keys()][0] ?? -1) : -1;
  return { isAdded, byFirstByte, startsAdded, onlyFirst };
}

function sameIds(a: readonly number[], ids: readonly number[], from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== ids[from + k]) return false;
  return true;
}

/** Canonical encodings of pre-tokens: verdicts by id sequence, ids by bytes (both cached). */
class CanonicalCache {
  private readonly single: Uint8Array;
  // Verdicts of multi-token pre-tokens by id sequence: no key string or object per entry.
  private readonly multi = new SequenceVerdicts();
  private readonly words = new Map<string, readonly number[]>();

  constructor(
    private readonly spec: FastRoundTripSpec,
    vocabSize: number,
  ) {
    this.single = new Uint8Array(vocabSize);
  }

  /** Ids [from, to) are the canonical encoding of the pre-token bytes buf[p, q)? Cached. */
  isCanonical(
    ids: readonly number[],
    from: number,
    to: number,
    buf: Uint8Array,
    p: number,
    q: number,
  ): boolean {
    const { spec, single } = this;
    if (to - from === 1) {
      const id = ids[from] ?? 0;
      let v = single[id] ?? UNKNOWN;
      if (v === UNKNOWN) {
        v = sameIds(spec.encodeWord(buf.slice(p, q)), ids, from, to) ? CANONICAL : NOT_CANONICAL;
        single[id] = v;
      }
      return v === CANONICAL;
    }
    const { multi } = this;
    const slot = multi.find(ids, from, to);
    let v = multi.verdictAt(slot);
    if (v === UNKNOWN) {
      v = sameIds(spec.encodeWord(buf.slice(p, q)), ids, from, to) ? CANONICAL : NOT_CANONICAL;
      multi.add(slot, ids, from, to, v);
    }
    return v === CANONICAL;
  }

  /** Canonical ids of the pre-token bytes buf[p, q), cached by its bytes. */
  encodeWord(buf: Uint8Array, p: number, q: number): readonly number[] {
    let key = "";
    for (let k = p; k < q; k++) key += String.fromCharCode(buf[k] ?? 0);
    let ids = this.words.get(key);
    if (!ids) {
      ids = this.spec.encodeWord(buf.slice(p, q));
      this.words.set(key, ids);
    }
    return ids;
  }
}

/** FNV-1a over ids [from, to), mixed. */
function hashIds(ids: ArrayLike<number>, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from);
  for (let k = from; k < to; k++) h = Math.imul(h ^ (ids[k] ?? 0), 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * Verdicts keyed by id sequences, in an open-addressing table over typed arrays: each entry's ids
 * sit in one pool, so an entry costs a few bytes per id, not a Map per id.
 */
class SequenceVerdicts {
  /** Entry index + 1 per slot (0: empty). */
  private slots = new Int32Array(1 << 12);
  private starts = new Int32Array(1 << 11);
  private lengths = new Int32Array(1 << 11);
  private verdicts = new Uint8Array(1 << 11);
  private pool = new Int32Array(1 << 14);
  private used = 0;
  private entries = 0;

  /** The slot holding ids [from, to), or the empty slot where they would go. */
  find(ids: readonly number[], from: number, to: number): number {
    const { slots, starts, lengths, pool } = this;
    const mask = slots.length - 1;
    const n = to - from;
    for (let s = hashIds(ids, from, to) & mask; ; s = (s + 1) & mask) {
      const e = (slots[s] ?? 0) - 1;
      if (e < 0) return s;
      if (lengths[e] !== n) continue;
      const at = starts[e] ?? 0;
      let k = 0;
      while (k < n && pool[at + k] === ids[from + k]) k++;
      if (k === n) return s;
    }
  }

  /** The verdict in a slot `find` gave (UNKNOWN when empty). */
  verdictAt(slot: number): number {
    const e = (this.slots[slot] ?? 0) - 1;
    return e < 0 ? UNKNOWN : (this.verdicts[e] ?? UNKNOWN);
  }

  /** Stores the verdict of ids [from, to) in the empty slot `find` gave for them. */
  add(slot: number, ids: readonly number[], from: number, to: number, verdict: number): void {
    const n = to - from;
    if (this.used + n > this.pool.length) {
      const bigger = new Int32Array(Math.max(2 * this.pool.length, this.used + n));
      bigger.set(this.pool.subarray(0, this.used));
      this.pool = bigger;
    }
    if (this.entries === this.starts.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const bigger = make(2 * a.length);
        bigger.set(a);
        return bigger;
      };
      this.starts = grow(this.starts, (k) => new Int32Array(k));
      this.lengths = grow(this.lengths, (k) => new Int32Array(k));
      this.verdicts = grow(this.verdicts, (k) => new Uint8Array(k));
    }
    const e = this.entries++;
    for (let k = 0; k < n; k++) this.pool[this.used + k] = ids[from + k] ?? 0;
    this.starts[e] = this.used;
    this.lengths[e] = n;
    this.verdicts[e] = verdict;
    this.used += n;
    this.slots[slot] = e + 1;
    // Kept at most half full: rehash into twice the slots.
    if (2 * this.entries > this.slots.length) this.rehash();
  }

  private rehash(): void {
    const slots = new Int32Array(2 * this.slots.length);
    const mask = slots.length - 1;
    for (let e = 0; e < this.entries; e++) {
      const at = this.starts[e] ?? 0;
      let s = hashIds(this.pool, at, at + (this.lengths[e] ?? 0)) & mask;
      while ((slots[s] ?? 0) !== 0) s = (s + 1) & mask;
      slots[s] = e + 1;
    }
    this.slots = slots;
  }
}

/**
 * Byte spans [start, end) of buf[0, total) where an added token's text occurs other than exactly
 * at a recorded added token (the same scan the real splitter's leftmost-longest match makes;
 * empty when none). `offsets` holds each id's first byte.
 */
function strayAddedText(
  added: AddedTokens,
  buf: Uint8Array,
  offsets: Int32Array,
  ids: readonly number[],
  total: number,
): number[] {
  const { isAdded, byFirstByte, startsAdded, onlyFirst } = added;
  const spans: number[] = [];
  let t = 0;
  for (let p = 0; p < total; p++) {
    // With one possible first byte (`<` for Qwen and Llama-3), jump to its next occurrence.
    if (onlyFirst >= 0) {
      p = buf.indexOf(onlyFirst, p);
      if (p < 0 || p >= total) break;
    } else if (startsAdded[buf[p] ?? 0] === 0) continue;
    while ((offsets[t + 1] ?? total) <= p) t++;
    const id = ids[t] ?? 0;
    const tokenStart = offsets[t] ?? 0;
    const tokenEnd = offsets[t + 1] ?? 0;
    if (isAdded[id] === 1) {
      if (tokenStart === p) {
        for (const c of byFirstByte.get(buf[p] ?? 0) ?? []) {
          if (c.length > tokenEnd - p && matchesAt(buf, total, p, c)) spans.push(p, p + c.length);
        }
      }
      p = tokenEnd - 1;
      continue;
    }
    for (const c of byFirstByte.get(buf[p] ?? 0) ?? []) {
      if (matchesAt(buf, total, p, c)) spans.push(p, p + c.length);
    }
  }
  return spans;
}

/** True when some stray span of `spans` overlaps bytes [from, to). */
function overlapsStray(spans: readonly number[], from: number, to: number): boolean {
  for (let k = 0; k < spans.length; k += 2) {
    if ((spans[k] ?? 0) < to && (spans[k + 1] ?? 0) > from) return true;
  }
  return false;
}

const nfcSafe = new Map<number, boolean>();

/**
 * A character NFC can never change, whatever surrounds it: unchanged on its own, not a combining
 * mark and not a Hangul jamo (the only non-mark characters that compose with a neighbour).
 */
function isNfcSafe(cp: number): boolean {
  let safe = nfcSafe.get(cp);
  if (safe === undefined) {
    const ch = String.fromCodePoint(cp);
    safe = ch.normalize("NFC") === ch && !/\p{M}/u.test(ch) && !(cp >= 0x1100 && cp <= 0x11ff);
    nfcSafe.set(cp, safe);
  }
  return safe;
}

/**
 * True when NFC leaves the well-formed UTF-8 bytes [from, to) unchanged: checked per character
 * (cached) while every character is one NFC never changes, else on the whole run's text (marks,
 * emoji variation selectors: NFC leaves most such text alone, and the run is the unit the
 * normalizer sees). False for ill-formed bytes (the scanner declines them anyway).
 */
function isNfcStable(buf: Uint8Array, from: number, to: number): boolean {
  // One bounded view per run, not one per character (a character must not borrow bytes past `to`).
  let view: Uint8Array | undefined;
  let allSafe = true;
  for (let p = from; p < to; ) {
    if ((buf[p] ?? 0) < 0x80) {
      p++;
      continue;
    }
    view ??= buf.subarray(0, to);
    const length = utf8CharLength(view, p);
    if (length < 0) return false;
    if (allSafe && !isNfcSafe(utf8CodePoint(buf, p, length))) allSafe = false;
    p += length;
  }
  if (allSafe) return true;
  const text = utf8Decode(buf, from, to);
  return text.normalize("NFC") === text;
}

function matchesAt(buf: Uint8Array, total: number, p: number, content: Uint8Array): boolean {
  if (p + content.length > total) return false;
  for (let k = 0; k < content.length; k++) if (buf[p + k] !== content[k]) return false;
  return true;
}

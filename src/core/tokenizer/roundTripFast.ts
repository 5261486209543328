import {
  type AddedTokens,
  indexAddedTokens,
  overlapsStray,
  strayAddedText,
} from "./addedTokenText";
import { CanonicalCache } from "./canonicalCache";
import { isNfcStable } from "./nfcStable";
import { PreTokenScanner } from "./preTokenScanner";
import type { Tokenizer } from "./types";

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

/** Recorded ids' bytes laid end to end (`buf`) with each id's first byte (`offsets`). */
class RecordedBytes {
  buf = new Uint8Array(1 << 16);
  offsets = new Int32Array(1 << 12);
  // Every token's bytes in one flat pool (filled on first use): copying a token is then a loop
  // over one typed array, with no per-token object.
  private pool = new Uint8Array(1 << 16);
  private poolUsed = 0;
  private readonly poolStart: Int32Array;
  private readonly poolLength: Int32Array;

  constructor(private readonly tokenizer: Tokenizer) {
    this.poolStart = new Int32Array(tokenizer.vocabSize).fill(-1);
    this.poolLength = new Int32Array(tokenizer.vocabSize);
  }

  /** Start of token `id`'s bytes in `pool` (its length is in `poolLength`). */
  private pooled(id: number): number {
    const start = this.poolStart[id] ?? -1;
    if (start >= 0) return start;
    const b = this.tokenizer.tokenBytes(id);
    if (this.poolUsed + b.length > this.pool.length) {
      const bigger = new Uint8Array(Math.max(2 * this.pool.length, this.poolUsed + b.length));
      bigger.set(this.pool.subarray(0, this.poolUsed));
      this.pool = bigger;
    }
    this.pool.set(b, this.poolUsed);
    this.poolStart[id] = this.poolUsed;
    this.poolLength[id] = b.length;
    this.poolUsed += b.length;
    return this.poolUsed - b.length;
  }

  /**
   * Copies the ids' bytes into `buf` and their offsets into `offsets`; returns the number of bytes
   * copied, or -1 when an id is outside the vocabulary.
   */
  load(ids: readonly number[]): number {
    const n = ids.length;
    const vocabSize = this.poolStart.length;
    if (this.offsets.length < n + 1) this.offsets = new Int32Array(2 * n + 2);
    const { offsets, poolLength } = this;
    let { buf } = this;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const id = ids[i] ?? -1;
      if (id < 0 || id >= vocabSize) return -1;
      const start = this.pooled(id);
      const length = poolLength[id] ?? 0;
      if (total + length > buf.length) {
        const bigger = new Uint8Array(Math.max(2 * buf.length, total + length));
        bigger.set(buf.subarray(0, total));
        buf = this.buf = bigger;
      }
      offsets[i] = total;
      const { pool } = this;
      for (let k = 0; k < length; k++) buf[total + k] = pool[start + k] ?? 0;
      total += length;
    }
    offsets[n] = total;
    return total;
  }
}

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
  const added: AddedTokens = indexAddedTokens(tokenizer);
  const bytes = new RecordedBytes(tokenizer);
  const canonical = new CanonicalCache(spec, tokenizer.vocabSize);

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
    const { buf, offsets } = bytes;
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
      const total = bytes.load(ids);
      if (total < 0) return plainRoundTrip(ids);
      // An added token spelled across or inside ordinary text changes how the text around it
      // splits. A recorded added token no stray text overlaps is still matched as itself by the
      // leftmost-longest splitter, so it still cuts the text: only the runs between two such
      // tokens that hold stray text go through the real encoder.
      const stray = strayAddedText(added, bytes.buf, bytes.offsets, ids, total);
      return roundTripRuns(ids, bytes.offsets, added.isAdded, stray, fastSection, plainRoundTrip);
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

/** The BPE model alone: canonical ids of ONE pre-token given as its UTF-8 bytes. */
export interface WordEncoder {
  encodeWord(bytes: Uint8Array): readonly number[];
}

const UNKNOWN = 0;
const CANONICAL = 1;
const NOT_CANONICAL = 2;

function sameIds(a: readonly number[], ids: readonly number[], from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== ids[from + k]) return false;
  return true;
}

/** Canonical encodings of pre-tokens: verdicts by id sequence, ids by bytes (both cached). */
export class CanonicalCache {
  private readonly single: Uint8Array;
  // Verdicts of multi-token pre-tokens by id sequence: no key string or object per entry.
  private readonly multi = new SequenceVerdicts();
  private readonly words = new Map<string, readonly number[]>();

  constructor(
    private readonly spec: WordEncoder,
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

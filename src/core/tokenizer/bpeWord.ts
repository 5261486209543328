/**
 * Byte-pair encoding of one pre-token, for byte-level BPE vocabularies (Qwen2/3, Llama-3): the
 * pieces @huggingface/tokenizers' BPE gives (lowest-ranked pair first, leftmost on ties; with
 * `ignore_merges`, a pre-token that is a piece is that piece), over token ids. The one word BPE of
 * the project: the compact tokenizer (compactTokenizer.ts) and the library-backed one
 * (src/tokenizer/hfTokenizer.ts) both encode with it. Pairs are found in an open-addressing table
 * of id pairs (no key string per lookup, no binary search), built on first use from the merges by
 * id; each merge re-ranks only the two pairs next to it. Long words merge through a heap, or
 * level by level (every occurrence of the lowest-ranked pair in one sweep) when they are mostly
 * runs of one byte and the merges are monotone.
 */

/** The merges by id, in no particular order: merge k joins (left[k], right[k]) into merged[k]. */
export interface IdMerges {
  readonly left: ArrayLike<number>;
  readonly right: ArrayLike<number>;
  /** Lower ranks merge first (the merge's index in tokenizer.json). */
  readonly rank: ArrayLike<number>;
  readonly merged: ArrayLike<number>;
}

/**
 * Merges as an id-pair hash table: (left, right) -> (rank, merged id), one slot of four int32s
 * (left + 1, right, rank, merged; 0 when empty, so a new table needs no filling), so a lookup
 * touches one cache line.
 */
export interface PairTable {
  readonly mask: number;
  readonly slots: Int32Array;
}

const NO_RANK = 0x7fffffff;

const slotOf = (mask: number, a: number, b: number) =>
  (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x632be5ab, 0x85ebca77)) & mask;

/**
 * The merges of a vocabulary (piece -> id) by id, the way the library ranks them: a merge whose
 * sides are not pieces can never apply (every piece BPE reaches is in the vocabulary) and is left
 * out; a pair listed twice keeps its later rank. A string says why ids cannot mirror the pieces
 * (a merge making a piece the vocabulary lacks).
 */
export function idMergesOf(
  merges: readonly (readonly string[] | string)[],
  idOf: ReadonlyMap<string, number>,
): IdMerges | string {
  const left: number[] = [];
  const right: number[] = [];
  const rank: number[] = [];
  const merged: number[] = [];
  for (let r = 0; r < merges.length; r++) {
    const m = merges[r];
    const pair = typeof m === "string" ? m.split(" ", 2) : (m ?? []);
    const a = String(pair[0]);
    const b = String(pair[1]);
    const l = idOf.get(a);
    const rt = idOf.get(b);
    if (l === undefined || rt === undefined) continue;
    const id = idOf.get(a + b);
    if (id === undefined) return `merge ${r} (${a} ${b}) makes a piece not in the vocabulary`;
    left.push(l);
    right.push(rt);
    rank.push(r);
    merged.push(id);
  }
  return { left, right, rank, merged };
}

/** The hash table of the merges by id; a pair given twice keeps its later entry. */
export function pairTableOf(merges: IdMerges): PairTable {
  const count = merges.left.length;
  let size = 1024;
  while (size < 2 * count) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(4 * size);
  for (let k = 0; k < count; k++) {
    const a = merges.left[k] as number;
    const b = merges.right[k] as number;
    let s = slotOf(mask, a, b);
    for (;;) {
      const l = slots[4 * s] as number;
      if (l === 0 || (l === a + 1 && slots[4 * s + 1] === b)) break;
      s = (s + 1) & mask;
    }
    // A pair listed twice keeps the later entry (the library's rank map does the same).
    const at = 4 * s;
    slots[at] = a + 1;
    slots[at + 1] = b;
    slots[at + 2] = merges.rank[k] as number;
    slots[at + 3] = merges.merged[k] as number;
  }
  return { mask, slots };
}

/**
 * True when every merge ranks above every merge making its left or its right side: a merge then
 * never makes a pair that ranks before it, so all of a pair's occurrences merge in one sweep
 * (`mergeByLevels`). Over the
 * merges as listed: a pair listed twice counts with both ranks, which can only say false.
 */
export function isMonotone(merges: IdMerges): boolean {
  const { left, right, rank, merged } = merges;
  let maxId = 0;
  for (let k = 0; k < merged.length; k++) {
    maxId = Math.max(maxId, left[k] as number, right[k] as number, merged[k] as number);
  }
  // The highest rank of a merge making each id (-1: none makes it).
  const made = new Int32Array(maxId + 1).fill(-1);
  for (let k = 0; k < merged.length; k++) {
    const id = merged[k] as number;
    made[id] = Math.max(made[id] as number, rank[k] as number);
  }
  for (let k = 0; k < merged.length; k++) {
    const r = rank[k] as number;
    if ((made[left[k] as number] as number) >= r || (made[right[k] as number] as number) >= r) {
      return false;
    }
  }
  return true;
}

/** Index in `t.slots` of the pair (a, b)'s entry (its rank at +2, merged id at +3), or -1. */
function findPair(t: PairTable, a: number, b: number): number {
  const { mask, slots } = t;
  for (let s = slotOf(mask, a, b); ; s = (s + 1) & mask) {
    const at = 4 * s;
    const l = slots[at] as number;
    if (l === 0) return -1;
    if (l === a + 1 && slots[at + 1] === b) return at;
  }
}

/** Encodes pre-tokens given as byte ranges. */
export interface BpeWordModel {
  /** Ids of the pre-token `bytes[from, to)`. */
  encode(bytes: Uint8Array, from: number, to: number): number[];
}

export interface BpeWordOptions {
  /** Id of each single-byte piece (the byte-level alphabet), 256 entries. */
  readonly byteIds: ArrayLike<number>;
  /** The merges by id; called once, on the first word that needs a merge. */
  readonly merges: () => IdMerges;
  /**
   * tokenizer.json's `model.ignore_merges` (Llama-3): the id of the piece `bytes[from, to)`
   * spells, or -1; a pre-token that is a piece is that piece.
   */
  readonly whole?: (bytes: Uint8Array, from: number, to: number) => number;
}

/** A word BPE over ids. */
export function createBpeWordModel(options: BpeWordOptions): BpeWordModel {
  const { byteIds, whole } = options;
  let merges: IdMerges | undefined;
  let table: PairTable | undefined;
  // Whether the merges are monotone: asked on the first word that would merge level by level.
  let monotone: boolean | undefined;
  const work = new WordWork();
  return {
    encode(bytes, from, to) {
      const n = to - from;
      if (n <= 0) return [];
      if (whole) {
        const id = whole(bytes, from, to);
        if (id >= 0) return [id];
      }
      if (n === 1) return [byteIds[bytes[from] as number] as number];
      work.reserve(n);
      const { parts } = work;
      for (let i = 0; i < n; i++) parts[i] = byteIds[bytes[from + i] as number] as number;
      if (merges === undefined || table === undefined) {
        merges = options.merges();
        table = pairTableOf(merges);
      }
      if (n <= SCAN_UP_TO) return work.mergeByScan(table, n);
      const runny = isRunny(bytes, from, to);
      if (runny) monotone ??= isMonotone(merges);
      return runny && monotone === true ? work.mergeByLevels(table, n) : work.mergeByHeap(table, n);
    },
  };
}

/**
 * The working arrays of one word's merges, grown as words need (one word at a time). Per
 * position: its piece, and the rank and table entry of the pair it starts (NO_RANK / -1 when none).
 */
class WordWork {
  parts = new Int32Array(256);
  private ranks = new Int32Array(256);
  private slots = new Int32Array(256);
  private next = new Int32Array(256);
  private prev = new Int32Array(256);
  private readonly heap = new MergeHeap();

  /** Room for a word of `n` pieces. */
  reserve(n: number): void {
    if (this.parts.length >= n) return;
    const size = Math.max(n, 2 * this.parts.length);
    this.parts = new Int32Array(size);
    this.ranks = new Int32Array(size);
    this.slots = new Int32Array(size);
    this.next = new Int32Array(size);
    this.prev = new Int32Array(size);
  }

  /** Short words: the lowest-ranked pair found by a scan, merged, until none is left. */
  mergeByScan(t: PairTable, n: number): number[] {
    const { parts, ranks, slots } = this;
    const entries = t.slots;
    for (let i = 0; i < n - 1; i++) {
      const s = findPair(t, parts[i] as number, parts[i + 1] as number);
      slots[i] = s;
      ranks[i] = s < 0 ? NO_RANK : (entries[s + 2] as number);
    }
    let pairs = n - 1;
    for (;;) {
      let best = NO_RANK;
      let at = -1;
      for (let i = 0; i < pairs; i++) {
        if ((ranks[i] as number) < best) {
          best = ranks[i] as number;
          at = i;
        }
      }
      if (at < 0) break;
      // The leftmost occurrence of the best pair; the next one is found by the next round.
      parts[at] = entries[(slots[at] as number) + 3] as number;
      for (let i = at + 1; i < pairs; i++) {
        parts[i] = parts[i + 1] as number;
        ranks[i - 1] = ranks[i] as number;
        slots[i - 1] = slots[i] as number;
      }
      pairs -= 1;
      // Only the pairs next to the merge change.
      for (let i = at > 0 ? at - 1 : at; i <= at && i < pairs; i++) {
        const s = findPair(t, parts[i] as number, parts[i + 1] as number);
        slots[i] = s;
        ranks[i] = s < 0 ? NO_RANK : (entries[s + 2] as number);
      }
    }
    const ids: number[] = new Array(pairs + 1);
    for (let i = 0; i <= pairs; i++) ids[i] = parts[i] as number;
    return ids;
  }

  /**
   * Long words (whitespace and CJK runs, long identifiers), in O(n log n): the pieces as a linked
   * list by first byte, candidate pairs in a heap by (rank, position), so the lowest rank merges
   * first and the leftmost on ties, as in the scan. Each position keeps the rank of the pair it
   * starts now; an entry whose rank is not that (the pair changed since it was pushed) is skipped.
   */
  mergeByHeap(t: PairTable, n: number): number[] {
    const { parts, ranks, slots, next, prev, heap } = this;
    const entries = t.slots;
    heap.clear();
    const offer = (i: number, j: number) => {
      const s = findPair(t, parts[i] as number, parts[j] as number);
      slots[i] = s;
      if (s < 0) {
        ranks[i] = NO_RANK;
        return;
      }
      const r = entries[s + 2] as number;
      ranks[i] = r;
      heap.push(r, i);
    };
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    ranks[n - 1] = NO_RANK;
    for (let i = 0; i < n - 1; i++) offer(i, i + 1);
    while (heap.size > 0) {
      heap.pop();
      const r = heap.rank;
      const i = heap.position;
      if (ranks[i] !== r || (parts[i] as number) < 0) continue;
      const j = next[i] as number;
      parts[i] = entries[(slots[i] as number) + 3] as number;
      parts[j] = -1;
      const k = next[j] as number;
      next[i] = k;
      if (k < n) {
        prev[k] = i;
        offer(i, k);
      } else {
        ranks[i] = NO_RANK;
      }
      const h = prev[i] as number;
      if (h >= 0) offer(h, i);
    }
    const ids: number[] = [];
    for (let i = 0; i < n; i = next[i] as number) ids.push(parts[i] as number);
    return ids;
  }

  /**
   * Long words of monotone merges (`isMonotone`), level by level: the lowest rank among the
   * current pairs, then every occurrence of that pair merged in one left-to-right sweep (leftmost
   * first where they overlap), as the heap would merge them one by one. Only the pairs next to a
   * merge are looked up again. Few levels for whitespace runs; a level per distinct merge.
   */
  mergeByLevels(t: PairTable, n: number): number[] {
    const { parts, ranks, slots, next } = this;
    const entries = t.slots;
    const lookup = (i: number) => {
      const s = findPair(t, parts[i] as number, parts[i + 1] as number);
      slots[i] = s;
      ranks[i] = s < 0 ? NO_RANK : (entries[s + 2] as number);
    };
    for (let i = 0; i < n - 1; i++) lookup(i);
    let len = n;
    for (;;) {
      let best = NO_RANK;
      for (let i = 0; i < len - 1; i++) if ((ranks[i] as number) < best) best = ranks[i] as number;
      if (best === NO_RANK) break;
      // Sweep: merged pieces are marked in `next` (1) so their pairs are looked up again.
      let w = 0;
      for (let i = 0; i < len; w++) {
        if (i < len - 1 && ranks[i] === best) {
          parts[w] = entries[(slots[i] as number) + 3] as number;
          next[w] = 1;
          i += 2;
        } else {
          parts[w] = parts[i] as number;
          ranks[w] = ranks[i] as number;
          slots[w] = slots[i] as number;
          next[w] = 0;
          i += 1;
        }
      }
      len = w;
      for (let i = 0; i < len - 1; i++) if (next[i] === 1 || next[i + 1] === 1) lookup(i);
    }
    const ids: number[] = new Array(len);
    for (let i = 0; i < len; i++) ids[i] = parts[i] as number;
    return ids;
  }
}

/**
 * True when most of `bytes[from, to)` is runs of one byte (whitespace runs, rules of `-`): few
 * distinct merges apply, so merging level by level beats the heap.
 */
function isRunny(bytes: Uint8Array, from: number, to: number): boolean {
  let changes = 0;
  for (let i = from + 1; i < to; i++) if (bytes[i] !== bytes[i - 1]) changes++;
  return changes * 8 < to - from;
}

/** Words of up to this many bytes merge by scanning (faster for short words than a heap). */
export const SCAN_UP_TO = 24;
/** A binary min-heap of (rank, position) pairs, ordered by rank then position (int32 arrays). */
class MergeHeap {
  private ranks = new Int32Array(256);
  private positions = new Int32Array(256);
  size = 0;
  /** Rank and position of the entry `pop` removed last. */
  rank = 0;
  position = 0;

  clear(): void {
    this.size = 0;
  }

  push(rank: number, position: number): void {
    if (this.size === this.ranks.length) {
      const ranks = new Int32Array(2 * this.size);
      const positions = new Int32Array(2 * this.size);
      ranks.set(this.ranks);
      positions.set(this.positions);
      this.ranks = ranks;
      this.positions = positions;
    }
    const { ranks, positions } = this;
    let i = this.size++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      const r = ranks[up] as number;
      if (r < rank || (r === rank && (positions[up] as number) < position)) break;
      ranks[i] = r;
      positions[i] = positions[up] as number;
      i = up;
    }
    ranks[i] = rank;
    positions[i] = position;
  }

  /** Removes the smallest entry into `rank` and `position`. */
  pop(): void {
    const { ranks, positions } = this;
    this.rank = ranks[0] as number;
    this.position = positions[0] as number;
    const n = --this.size;
    const lastRank = ranks[n] as number;
    const lastPosition = positions[n] as number;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let cr = ranks[c] as number;
      let cp = positions[c] as number;
      if (c + 1 < n) {
        const dr = ranks[c + 1] as number;
        const dp = positions[c + 1] as number;
        if (dr < cr || (dr === cr && dp < cp)) {
          c++;
          cr = dr;
          cp = dp;
        }
      }
      if (cr > lastRank || (cr === lastRank && cp > lastPosition)) break;
      ranks[i] = cr;
      positions[i] = cp;
      i = c;
    }
    ranks[i] = lastRank;
    positions[i] = lastPosition;
  }
}

/**
 * Byte-pair encoding of one pre-token, for byte-level BPE vocabularies (Qwen2/3, Llama-3): the
 * pieces @huggingface/tokenizers' BPE gives (lowest-ranked pair first, leftmost on ties; with
 * `ignore_merges`, a pre-token that is a piece is that piece), over token ids. The one word BPE of
 * the project: the compact tokenizer (compactTokenizer.ts) and the library-backed one
 * (src/tokenizer/hfTokenizer.ts) both encode with it. Pairs are found in an open-addressing table
 * of id pairs (no key string per lookup, no binary search), built on first use from the merges by
 * id; each merge re-ranks only the two pairs next to it.
 */

/** The merges by id, in no particular order: merge k joins (left[k], right[k]) into merged[k]. */
export interface IdMerges {
  readonly left: ArrayLike<number>;
  readonly right: ArrayLike<number>;
  /** Lower ranks merge first (the merge's index in tokenizer.json). */
  readonly rank: ArrayLike<number>;
  readonly merged: ArrayLike<number>;
}

/** Merges as an id-pair hash table: (left, right) -> (rank, merged id). */
export interface PairTable {
  readonly mask: number;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly rank: Int32Array;
  readonly merged: Int32Array;
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
  const table: PairTable = {
    mask,
    left: new Int32Array(size).fill(-1),
    right: new Int32Array(size),
    rank: new Int32Array(size),
    merged: new Int32Array(size),
  };
  for (let k = 0; k < count; k++) {
    const a = merges.left[k] as number;
    const b = merges.right[k] as number;
    let s = slotOf(mask, a, b);
    for (;;) {
      const l = table.left[s] as number;
      if (l === -1 || (l === a && table.right[s] === b)) break;
      s = (s + 1) & mask;
    }
    // A pair listed twice keeps the later entry (the library's rank map does the same).
    table.left[s] = a;
    table.right[s] = b;
    table.rank[s] = merges.rank[k] as number;
    table.merged[s] = merges.merged[k] as number;
  }
  return table;
}

/** Table slot of the pair (a, b), or -1. */
function findPair(t: PairTable, a: number, b: number): number {
  const { mask, left, right } = t;
  for (let s = slotOf(mask, a, b); ; s = (s + 1) & mask) {
    const l = left[s] as number;
    if (l === -1) return -1;
    if (l === a && right[s] === b) return s;
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
  let table: PairTable | undefined;
  // Working arrays, grown as words need (one word at a time).
  let parts = new Int32Array(256);
  let ranks = new Int32Array(256);
  let slots = new Int32Array(256);

  let next = new Int32Array(256);
  let prev = new Int32Array(256);
  const heap = new MergeHeap();

  /** Short words: the lowest-ranked pair found by a scan, merged, until none is left. */
  const mergeByScan = (t: PairTable, n: number): number[] => {
    const { rank, merged } = t;
    for (let i = 0; i < n - 1; i++) {
      const s = findPair(t, parts[i] as number, parts[i + 1] as number);
      slots[i] = s;
      ranks[i] = s < 0 ? NO_RANK : (rank[s] as number);
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
      parts[at] = merged[slots[at] as number] as number;
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
        ranks[i] = s < 0 ? NO_RANK : (rank[s] as number);
      }
    }
    const ids: number[] = new Array(pairs + 1);
    for (let i = 0; i <= pairs; i++) ids[i] = parts[i] as number;
    return ids;
  };

  /**
   * Long words (whitespace and CJK runs, long identifiers), in O(n log n): the pieces as a linked
   * list by first byte, candidate pairs in a heap by (rank, position), so the lowest rank merges
   * first and the leftmost on ties, as in the scan. An entry whose pair has changed since it was
   * pushed is skipped (the pair at its position no longer has its rank).
   */
  const mergeByHeap = (t: PairTable, n: number): number[] => {
    const { rank, merged } = t;
    heap.clear();
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const offer = (i: number) => {
      const s = findPair(t, parts[i] as number, parts[next[i] as number] as number);
      if (s >= 0) heap.push(rank[s] as number, i);
    };
    for (let i = 0; i < n - 1; i++) offer(i);
    while (heap.size > 0) {
      const key = heap.pop();
      const r = Math.floor(key / POSITIONS);
      const i = key - r * POSITIONS;
      const j = next[i] as number;
      if ((parts[i] as number) < 0 || j >= n) continue;
      const s = findPair(t, parts[i] as number, parts[j] as number);
      if (s < 0 || rank[s] !== r) continue;
      parts[i] = merged[s] as number;
      parts[j] = -1;
      const k = next[j] as number;
      next[i] = k;
      if (k < n) {
        prev[k] = i;
        offer(i);
      }
      const h = prev[i] as number;
      if (h >= 0) offer(h);
    }
    const ids: number[] = [];
    for (let i = 0; i < n; i = next[i] as number) ids.push(parts[i] as number);
    return ids;
  };

  return {
    encode(bytes, from, to) {
      const n = to - from;
      if (n <= 0) return [];
      if (whole) {
        const id = whole(bytes, from, to);
        if (id >= 0) return [id];
      }
      if (n === 1) return [byteIds[bytes[from] as number] as number];
      if (parts.length < n) {
        const size = Math.max(n, 2 * parts.length);
        parts = new Int32Array(size);
        ranks = new Int32Array(size);
        slots = new Int32Array(size);
        next = new Int32Array(size);
        prev = new Int32Array(size);
      }
      for (let i = 0; i < n; i++) parts[i] = byteIds[bytes[from + i] as number] as number;
      if (table === undefined) table = pairTableOf(options.merges());
      return n <= SCAN_UP_TO || n >= POSITIONS ? mergeByScan(table, n) : mergeByHeap(table, n);
    },
  };
}

/** Words of up to this many bytes merge by scanning (faster for short words than a heap). */
export const SCAN_UP_TO = 24;
/** Heap keys are rank * POSITIONS + position (exact in a double for ranks below 2^31). */
const POSITIONS = 2 ** 22;

/** A binary min-heap of (rank, position) keys packed in doubles. */
class MergeHeap {
  private keys = new Float64Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(rank: number, position: number): void {
    if (this.size === this.keys.length) {
      const bigger = new Float64Array(2 * this.size);
      bigger.set(this.keys);
      this.keys = bigger;
    }
    const { keys } = this;
    const key = rank * POSITIONS + position;
    let i = this.size++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if ((keys[up] as number) <= key) break;
      keys[i] = keys[up] as number;
      i = up;
    }
    keys[i] = key;
  }

  /** Removes and returns the smallest key. */
  pop(): number {
    const { keys } = this;
    const top = keys[0] as number;
    const last = keys[--this.size] as number;
    const n = this.size;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && (keys[c + 1] as number) < (keys[c] as number)) c++;
      if ((keys[c] as number) >= last) break;
      keys[i] = keys[c] as number;
      i = c;
    }
    keys[i] = last;
    return top;
  }
}

/**
 * Byte-pair encoding of one pre-token over a compact tokenizer's ids (compactFormat.ts): the
 * pieces @huggingface/tokenizers' BPE gives (lowest rank first, leftmost on ties; with
 * `ignore_merges`, a pre-token that is a piece is that piece), with pairs and pieces found by
 * binary search in the blob's sorted tables instead of JSON-stringified keys in a Map: nothing
 * is built at load. A heap orders the candidate merges, so a long pre-token costs n log n.
 */
import { type CompactTokenizerData, compareBytes, FLAG_ADDED } from "./compactFormat";

/** Encodes pre-tokens given as byte ranges. */
export interface CompactBpe {
  /** Ids of the pre-token `bytes[from, to)`. */
  encode(bytes: Uint8Array, from: number, to: number): number[];
  /** The id the library's `tokens_to_ids` gives the byte-level spelling of `bytes[from, to)`, or -1. */
  lookup(bytes: Uint8Array, from: number, to: number): number;
}

const TWO_32 = 4294967296;

/** A BPE over the compact data. */
export function createCompactBpe(data: CompactTokenizerData): CompactBpe {
  const { header, offsets, flags, pool, sorted, mergeStart, mergeRight, mergeRank, mergeId } = data;
  const addedKey = new Map<number, readonly [number, number]>();
  for (const [id, start, length] of header.addedKeys) addedKey.set(id, [start, start + length]);

  const lookup = (bytes: Uint8Array, from: number, to: number): number => {
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const id = sorted[mid] ?? 0;
      const key = (flags[id] ?? 0) & FLAG_ADDED ? addedKey.get(id) : undefined;
      const start = key ? key[0] : (offsets[id] ?? 0);
      const end = key ? key[1] : (offsets[id + 1] ?? 0);
      const c = compareBytes(pool, start, end, bytes, from, to);
      if (c === 0) return id;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  /** Index of the merge (left, right) in the merge tables, or -1. */
  const mergeOf = (left: number, right: number): number => {
    let lo = mergeStart[left] ?? 0;
    let hi = (mergeStart[left + 1] ?? 0) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = mergeRight[mid] ?? 0;
      if (r === right) return mid;
      if (r < right) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  // Work arrays, grown as needed: the parts' ids and links, and a heap of rank * 2^32 + position.
  let id = new Int32Array(64);
  let next = new Int32Array(64);
  let prev = new Int32Array(64);
  let heap = new Float64Array(128);
  let size = 0;
  const push = (key: number) => {
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] ?? 0) <= key) break;
      heap[i] = heap[parent] ?? 0;
      i = parent;
    }
    heap[i] = key;
  };
  const pop = (): number => {
    const top = heap[0] ?? 0;
    const last = heap[--size] ?? 0;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && (heap[child + 1] ?? 0) < (heap[child] ?? 0)) child++;
      if ((heap[child] ?? 0) >= last) break;
      heap[i] = heap[child] ?? 0;
      i = child;
    }
    heap[i] = last;
    return top;
  };
  /** Queues the pair starting at part i, when it is a merge. */
  const offer = (i: number) => {
    const j = next[i] ?? -1;
    if (j < 0) return;
    const m = mergeOf(id[i] ?? 0, id[j] ?? 0);
    if (m >= 0) push((mergeRank[m] ?? 0) * TWO_32 + i);
  };

  return {
    lookup,
    encode(bytes, from, to) {
      const n = to - from;
      if (n <= 0) return [];
      if (header.ignoreMerges) {
        const whole = lookup(bytes, from, to);
        if (whole >= 0) return [whole];
      }
      if (n === 1) return [header.byteIds[bytes[from] ?? 0] ?? 0];
      if (id.length < n) {
        id = new Int32Array(2 * n);
        next = new Int32Array(2 * n);
        prev = new Int32Array(2 * n);
      }
      if (heap.length < 2 * n) heap = new Float64Array(4 * n);
      size = 0;
      for (let i = 0; i < n; i++) {
        id[i] = header.byteIds[bytes[from + i] ?? 0] ?? 0;
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
      }
      for (let i = 0; i + 1 < n; i++) offer(i);
      while (size > 0) {
        const key = pop();
        const rank = Math.floor(key / TWO_32);
        const i = key - rank * TWO_32;
        const j = next[i] ?? -1;
        // Stale: part i was merged into its left neighbour, or its pair changed since.
        if (j < 0 || id[i] === -1) continue;
        const m = mergeOf(id[i] ?? 0, id[j] ?? 0);
        if (m < 0 || mergeRank[m] !== rank) continue;
        id[i] = mergeId[m] ?? 0;
        id[j] = -1;
        const after = next[j] ?? -1;
        next[i] = after;
        if (after >= 0) prev[after] = i;
        const before = prev[i] ?? -1;
        if (before >= 0) offer(before);
        offer(i);
      }
      const out: number[] = [];
      for (let i = 0; i >= 0; i = next[i] ?? -1) out.push(id[i] ?? 0);
      return out;
    },
  };
}

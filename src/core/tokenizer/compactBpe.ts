/**
 * The compact tokenizer's pieces and word BPE (compactFormat.ts): a piece is found by binary
 * search in the blob's sorted piece table (nothing built at load), and pre-tokens are encoded by
 * the project's one word BPE (bpeWord.ts) over the blob's merges by id, its pair table built on
 * the first word that needs a merge.
 */
import { createBpeWordModel, type IdMerges } from "./bpeWord";
import { type CompactTokenizerData, compareBytes, FLAG_ADDED } from "./compactFormat";

/** Encodes pre-tokens given as byte ranges. */
export interface CompactBpe {
  /** Ids of the pre-token `bytes[from, to)`. */
  encode(bytes: Uint8Array, from: number, to: number): number[];
  /** The id the library's `tokens_to_ids` gives the byte-level spelling of `bytes[from, to)`, or -1. */
  lookup(bytes: Uint8Array, from: number, to: number): number;
}

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

  const merges = (): IdMerges => {
    const left = new Int32Array(mergeRight.length);
    for (let id = 0; id < header.vocabSize; id++) {
      left.fill(id, mergeStart[id] ?? 0, mergeStart[id + 1] ?? 0);
    }
    return { left, right: mergeRight, rank: mergeRank, merged: mergeId };
  };
  const word = createBpeWordModel({
    byteIds: Int32Array.from(header.byteIds),
    merges,
    ...(header.ignoreMerges ? { whole: lookup } : {}),
  });

  return { lookup, encode: word.encode };
}

/*
 * Seeded, reproducible mutations of a container's bytes for the fuzz harness: the same seed gives
 * the same damaged file on every machine. `replaceByte` is the one-byte change whose seeds 161,
 * 230, 327 and 396 of primeRolloutParquet(2) made the Parquet library loop (regressions/).
 */

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation = (bytes: Uint8Array, random: () => number) => Uint8Array;

const at = (random: () => number, n: number) => Math.floor(random() * n);

/** One byte set to a random value. */
export const replaceByte: Mutation = (bytes, random) => {
  const out = bytes.slice();
  const k = at(random, out.length);
  out[k] = at(random, 256);
  return out;
};

/** One bit flipped. */
const flipBit: Mutation = (bytes, random) => {
  const out = bytes.slice();
  const k = at(random, out.length);
  out[k] = (out[k] ?? 0) ^ (1 << at(random, 8));
  return out;
};

/** The file cut short. */
const truncate: Mutation = (bytes, random) => bytes.slice(0, at(random, bytes.length));

/** A span removed. */
const deleteSpan: Mutation = (bytes, random) => {
  const from = at(random, bytes.length);
  const to = Math.min(bytes.length, from + 1 + at(random, 64));
  return Uint8Array.from([...bytes.subarray(0, from), ...bytes.subarray(to)]);
};

/** A span repeated in place. */
const duplicateSpan: Mutation = (bytes, random) => {
  const from = at(random, bytes.length);
  const span = bytes.subarray(from, Math.min(bytes.length, from + 1 + at(random, 256)));
  return Uint8Array.from([...bytes.subarray(0, from), ...span, ...bytes]);
};

/** Bytes that declare big sizes: a long varint, big little-endian integers, a huge JSON number. */
const BIG = [
  [0xff, 0xff, 0xff, 0xff, 0x0f],
  [0xff, 0xff, 0xff, 0x7f],
  [0x00, 0xca, 0x9a, 0x3b],
  [...new TextEncoder().encode("1e308")],
  [...new TextEncoder().encode("99999999999")],
  [0xef, 0xbb, 0xbf],
];
const insertBig: Mutation = (bytes, random) => {
  const out = bytes.slice();
  const big = BIG[at(random, BIG.length)] ?? [];
  out.set(big.slice(0, out.length), Math.max(0, at(random, out.length) - big.length));
  return out;
};

export const MUTATIONS: readonly Mutation[] = [
  replaceByte,
  flipBit,
  truncate,
  deleteSpan,
  duplicateSpan,
  insertBig,
];

/** Case `seed`'s damaged copy of `bytes`: one to three mutations, chosen by the seed. */
export function mutate(bytes: Uint8Array, seed: number): Uint8Array {
  const random = seededRandom(seed);
  const count = 1 + at(random, 3);
  let out = bytes;
  for (let k = 0; k < count && out.length > 0; k++) {
    const mutation = MUTATIONS[at(random, MUTATIONS.length)] ?? replaceByte;
    out = mutation(out, random);
  }
  return out;
}

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBpeWordModel, type IdMerges, isMonotone, SCAN_UP_TO } from "./bpeWord";

/** BPE by its definition: merge the leftmost of the lowest-ranked adjacent pairs until none is left. */
function referenceBpe(merges: IdMerges, word: readonly number[]): number[] {
  const byPair = new Map<string, { rank: number; merged: number }>();
  for (let k = 0; k < merges.left.length; k++) {
    const rank = merges.rank[k] as number;
    byPair.set(`${merges.left[k]},${merges.right[k]}`, {
      rank,
      merged: merges.merged[k] as number,
    });
  }
  const parts = [...word];
  for (;;) {
    let at = -1;
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i + 1 < parts.length; i++) {
      const m = byPair.get(`${parts[i]},${parts[i + 1]}`);
      if (m && m.rank < best) {
        best = m.rank;
        at = i;
      }
    }
    if (at < 0) return parts;
    parts.splice(at, 2, byPair.get(`${parts[at]},${parts[at + 1]}`)?.merged ?? -1);
  }
}

/**
 * Random merges over the bytes 0..3 (ids 0..3): merge k joins two ids that exist before it into
 * the new id 256 + k. Ranked in that order they are monotone (every merge ranks after the merges
 * making its sides, as trained vocabularies are); `shuffle` re-ranks them at random.
 */
const mergesArb = (shuffle: boolean) =>
  fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 60 }).chain((picks) => {
    const left: number[] = [];
    const right: number[] = [];
    const seen = new Set<string>();
    for (const [a, b] of picks) {
      const ids = [0, 1, 2, 3, ...left.map((_, k) => 256 + k)];
      const l = ids[a % ids.length] as number;
      const r = ids[b % ids.length] as number;
      if (seen.has(`${l},${r}`)) continue;
      seen.add(`${l},${r}`);
      left.push(l);
      right.push(r);
    }
    const ranks = left.map((_, k) => k);
    const rank = shuffle
      ? fc.shuffledSubarray(ranks, { minLength: ranks.length })
      : fc.constant(ranks);
    return rank.map(
      (rk): IdMerges => ({ left, right, rank: rk, merged: left.map((_, k) => 256 + k) }),
    );
  });

/** Words of the bytes 0..3: random ones, and ones made of long runs of one byte. */
const wordArb = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 120 }),
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 90 })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((runs) => runs.flatMap(([b, n]) => Array.from({ length: n }, () => b))),
);

const byteIds = Int32Array.from({ length: 256 }, (_, b) => b);

describe("the word BPE against its definition", () => {
  it.each([
    ["monotone merges (scan, heap and level by level)", false],
    ["merges ranked out of order (scan and heap)", true],
  ])("%s", (_, shuffle) => {
    fc.assert(
      fc.property(mergesArb(shuffle), fc.array(wordArb, { maxLength: 8 }), (merges, words) => {
        const model = createBpeWordModel({ byteIds, merges: () => merges });
        for (const word of words) {
          const bytes = Uint8Array.from([9, ...word, 9]);
          expect(model.encode(bytes, 1, bytes.length - 1)).toEqual(referenceBpe(merges, word));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("merges a long run of one byte level by level only when the merges are monotone", () => {
    // a+a -> A (rank 0), A+A -> B (rank 1): monotone; B+B first (rank 0) is not.
    const monotone: IdMerges = {
      left: [0, 256],
      right: [0, 256],
      rank: [0, 1],
      merged: [256, 257],
    };
    const outOfOrder: IdMerges = { ...monotone, rank: [1, 0] };
    expect(isMonotone(monotone)).toBe(true);
    expect(isMonotone(outOfOrder)).toBe(false);
    const run = new Array(4 * SCAN_UP_TO + 3).fill(0);
    for (const merges of [monotone, outOfOrder]) {
      const model = createBpeWordModel({ byteIds, merges: () => merges });
      expect(model.encode(Uint8Array.from(run), 0, run.length)).toEqual(referenceBpe(merges, run));
    }
    // aaaa…a: pairs of a, then pairs of those; an odd piece is left at each level.
    const model = createBpeWordModel({ byteIds, merges: () => monotone });
    expect(model.encode(Uint8Array.from(run), 0, run.length)).toEqual([
      ...new Array(SCAN_UP_TO).fill(257),
      256,
      0,
    ]);
  });
});

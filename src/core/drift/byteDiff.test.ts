import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteEqualRuns, type EqualRun, myersEqualRuns } from "./byteDiff";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Runs must be in order, non-overlapping and cover equal bytes. */
function assertValid(a: ArrayLike<number>, b: ArrayLike<number>, runs: readonly EqualRun[]) {
  let x = 0;
  let y = 0;
  for (const r of runs) {
    expect(r.x).toBeGreaterThanOrEqual(x);
    expect(r.y).toBeGreaterThanOrEqual(y);
    for (let k = 0; k < r.length; k++) expect(a[r.x + k]).toBe(b[r.y + k]);
    x = r.x + r.length;
    y = r.y + r.length;
  }
  expect(x).toBeLessThanOrEqual(a.length);
  expect(y).toBeLessThanOrEqual(b.length);
}

const equalLength = (runs: readonly EqualRun[]) => runs.reduce((n, r) => n + r.length, 0);

describe("byteEqualRuns", () => {
  it.each([
    ["identical", "abc\ndef", "abc\ndef", [{ x: 0, y: 0, length: 7 }]],
    [
      "a dropped think block",
      "A\n<think>\nhm\n</think>\n\nHi",
      "A\nHi",
      [
        { x: 0, y: 0, length: 2 },
        { x: 23, y: 2, length: 2 },
      ],
    ],
    [
      "a replaced character",
      "x\u00e9y",
      "x\ufffdy",
      [
        { x: 0, y: 0, length: 1 },
        { x: 3, y: 4, length: 1 },
      ],
    ],
  ])("%s", (_name, a, b, runs) => {
    expect(byteEqualRuns(bytes(a), bytes(b))).toEqual(runs);
  });

  it("is a valid alignment keeping every byte of a one-sided edit", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (pre, mid, post) => {
        const a = bytes(pre + mid + post);
        const b = bytes(pre + post);
        const runs = byteEqualRuns(a, b);
        assertValid(a, b, runs);
        expect(equalLength(runs)).toBe(b.length);
      }),
    );
  });

  it("is a valid alignment for arbitrary pairs", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), (a, b) => {
        assertValid(a, b, byteEqualRuns(a, b));
      }),
    );
  });
});

describe("myersEqualRuns", () => {
  it("finds the longest common subsequence on a classic example", () => {
    const runs = myersEqualRuns(bytes("ABCABBA"), bytes("CBABAC"), 100);
    expect(runs && equalLength(runs)).toBe(4);
  });
  it("gives up (undefined) beyond the edit budget", () => {
    expect(myersEqualRuns(bytes("aaaa"), bytes("bbbb"), 3)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { FastScrollDetector } from "./fastScroll";

/** Feeds offsets (CSS px) with a 900 px viewport; returns each answer. */
function run(offsets: readonly number[], settleBefore: readonly number[] = []): boolean[] {
  const detector = new FastScrollDetector();
  return offsets.map((offset, i) => {
    if (settleBefore.includes(i)) detector.settle();
    return detector.update(offset, 900);
  });
}

describe("FastScrollDetector", () => {
  it.each([
    {
      name: "wheel steps of 120 px",
      offsets: [0, 120, 240, 360, 480],
      fast: [false, false, false, false, false],
    },
    {
      name: "one jump (find, deep link)",
      offsets: [0, 50_000, 50_100, 50_200],
      fast: [false, false, false, false],
    },
    {
      name: "a drag of 2,000 px a frame",
      offsets: [0, 2000, 4000, 6000, 6010],
      fast: [false, false, true, true, false],
    },
    { name: "a drag upwards", offsets: [9000, 7000, 5000], fast: [false, false, true] },
    {
      name: "exactly a third of the viewport a step is not fast",
      offsets: [0, 300, 600, 900],
      fast: [false, false, false, false],
    },
    {
      name: "a fling of 350 px a frame is",
      offsets: [0, 350, 700, 1050, 1060],
      fast: [false, false, true, true, false],
    },
  ])("$name", ({ offsets, fast }) => {
    expect(run(offsets)).toEqual(fast);
  });

  it("after settling, the next big move counts as a jump again", () => {
    expect(run([0, 2000, 4000, 6000, 8000], [3])).toEqual([false, false, true, false, true]);
  });

  it("an unknown viewport (0) never reports fast", () => {
    const detector = new FastScrollDetector();
    expect([0, 5000, 10_000, 15_000].map((o) => detector.update(o, 0))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

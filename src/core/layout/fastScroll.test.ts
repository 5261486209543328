import { describe, expect, it } from "vitest";
import { FastScrollDetector } from "./fastScroll";

/** Feeds offsets (CSS px) with a 900 px viewport, announcing a jump before the given steps. */
function run(offsets: readonly number[], jumpsBefore: readonly number[] = []): boolean[] {
  const detector = new FastScrollDetector();
  return offsets.map((offset, i) => {
    if (jumpsBefore.includes(i)) detector.expectJump();
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
      name: "a drag of 2,000 px a frame, fast from its first move",
      offsets: [0, 2000, 4000, 6000, 6010],
      fast: [false, true, true, true, false],
    },
    { name: "a drag upwards", offsets: [9000, 7000, 5000], fast: [false, true, true] },
    {
      name: "exactly a third of the viewport a step is not fast",
      offsets: [0, 300, 600, 900],
      fast: [false, false, false, false],
    },
    {
      name: "a fling of 350 px a frame is",
      offsets: [0, 350, 700, 1050, 1060],
      fast: [false, true, true, true, false],
    },
  ])("$name", ({ offsets, fast }) => {
    expect(run(offsets)).toEqual(fast);
  });

  it("a jump the app announced (find, deep link) is not fast, and only that one move", () => {
    expect(run([0, 50_000, 50_100, 90_000, 95_000], [1])).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
    // An announced scroll that turned out small uses the announcement up too.
    expect(run([0, 100, 50_000], [1])).toEqual([false, false, true]);
  });

  it("a jump announced but forgotten (the list was already there) leaves the next drag fast", () => {
    const detector = new FastScrollDetector();
    detector.update(0, 900);
    detector.expectJump();
    detector.forgetJump();
    expect(detector.update(2000, 900)).toBe(true);
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

import { describe, expect, it } from "vitest";
import { fitPieces } from "./fitPieces";

describe("fitPieces", () => {
  it.each([
    ["same ids: all reused but the last", [1, 2, 3], [1, 2, 3], ["a", "b", "c"], ["a", "b", "#3"]],
    [
      "grown: placeholders for the new tail",
      [1, 2, 3, 4],
      [1, 2, 3],
      ["a", "b", "c"],
      ["a", "b", "#3", "#4"],
    ],
    [
      "diverged: nothing reused past the difference",
      [1, 9, 3],
      [1, 2, 3],
      ["a", "b", "c"],
      ["a", "#9", "#3"],
    ],
    ["nothing known", [5, 6], [], [], ["#5", "#6"]],
    ["fewer pieces than ids known", [1, 2, 3], [1, 2, 3], ["a"], ["a", "#2", "#3"]],
  ])("%s", (_label, ids, knownIds, knownPieces, expected) => {
    expect(fitPieces(ids, knownIds, knownPieces)).toEqual(expected);
  });
});

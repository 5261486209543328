import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { topLogprobIds } from "./topLogprobIds";

describe("topLogprobIds", () => {
  it("lists every alternative of every model segment once, ascending", () => {
    const t = trajectory([
      promptSegment([1, 2]),
      modelSegment([7, 8], 1, {
        topLogprobs: [
          [
            { tokenId: 7, logprob: -0.1 },
            { tokenId: 22939, logprob: -2 },
          ],
          null,
        ],
      }),
      modelSegment([9], 2, {
        topLogprobs: [
          [
            { tokenId: 22939, logprob: -1 },
            { tokenId: 3, logprob: -3 },
          ],
        ],
      }),
    ]);
    expect(topLogprobIds(t)).toEqual([3, 7, 22939]);
  });

  it("is empty without top-k", () => {
    expect(topLogprobIds(trajectory([promptSegment([1]), modelSegment([2], 1)]))).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { calculatorEpisode } from "../../test/trajectoryBuilders";
import {
  flattenSegments,
  sliceSegments,
  spansFromMask,
  spansFromSegmentInfo,
  turnsOf,
} from "./flatten";

describe("flattenSegments", () => {
  it("derives strands-compatible flat arrays and offsets", () => {
    const flat = flattenSegments(calculatorEpisode().segments);
    expect(flat.tokenIds).toHaveLength(33);
    expect(flat.lossMask).toEqual([
      ...Array<0>(13).fill(0),
      ...Array<1>(4).fill(1),
      ...Array<0>(12).fill(0),
      ...Array<1>(4).fill(1),
    ]);
    expect(flat.logprobs.slice(12, 15)).toEqual([null, -0.1, -0.2]);
    expect(flat.segmentInfo).toEqual([
      [false, 13],
      [true, 4],
      [false, 12],
      [true, 4],
    ]);
    expect(flat.offsets).toEqual([
      { start: 0, end: 13 },
      { start: 13, end: 17 },
      { start: 17, end: 29 },
      { start: 29, end: 33 },
    ]);
  });

  it("is empty for no segments", () => {
    expect(flattenSegments([])).toEqual({
      tokenIds: [],
      lossMask: [],
      logprobs: [],
      segmentInfo: [],
      offsets: [],
    });
  });
});

describe("spansFromMask", () => {
  const cases: { name: string; mask: (0 | 1)[]; prompt: number; want: string }[] = [
    {
      name: "prompt then one model run",
      mask: [0, 0, 1, 1],
      prompt: 2,
      want: "prompt:0-2 model:2-4",
    },
    {
      name: "agentic runs",
      mask: [0, 1, 0, 0, 1],
      prompt: 1,
      want: "prompt:0-1 model:1-2 tool:2-4 model:4-5",
    },
    {
      name: "response starts with mask 0",
      mask: [0, 0, 0, 1],
      prompt: 1,
      want: "prompt:0-1 tool:1-3 model:3-4",
    },
    { name: "no prompt", mask: [1, 1], prompt: 0, want: "model:0-2" },
    { name: "all prompt", mask: [0, 0], prompt: 2, want: "prompt:0-2" },
    { name: "empty", mask: [], prompt: 0, want: "" },
  ];
  it.each(cases)("$name", ({ mask, prompt, want }) => {
    const got = spansFromMask(mask, prompt)
      .map((s) => `${s.kind}:${s.start}-${s.end}`)
      .join(" ");
    expect(got).toBe(want);
  });
});

describe("spansFromSegmentInfo and turns", () => {
  it("keeps adjacent non-output segments apart and numbers turns by model segment", () => {
    const spans = spansFromSegmentInfo([
      [false, 3],
      [false, 2],
      [true, 1],
      [false, 2],
      [true, 1],
    ]);
    expect(spans.map((s) => s.kind)).toEqual(["prompt", "tool", "model", "tool", "model"]);
    expect(turnsOf(spans.map((s) => s.kind))).toEqual([0, 0, 1, 1, 2]);
    expect(spans.at(-1)).toEqual({ kind: "model", start: 8, end: 9 });
  });

  it("slices flat arrays back into the same segments", () => {
    const original = calculatorEpisode().segments;
    const flat = flattenSegments(original);
    const rebuilt = sliceSegments(flat, spansFromSegmentInfo(flat.segmentInfo));
    expect(rebuilt).toEqual(
      original.map((s) => ({
        kind: s.kind,
        turn: s.turn,
        tokenIds: s.tokenIds,
        lossMask: s.lossMask,
        logprobs: s.logprobs,
      })),
    );
  });
});

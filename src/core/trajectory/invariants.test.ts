import { describe, expect, it } from "vitest";
import {
  calculatorEpisode,
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { checkTrajectory } from "./invariants";
import type { Trajectory } from "./types";

const prompt = promptSegment([1, 2, 3]);

describe("checkTrajectory", () => {
  it("accepts a well-formed agentic episode and an empty one", () => {
    expect(checkTrajectory(calculatorEpisode())).toEqual([]);
    expect(checkTrajectory(trajectory([]))).toEqual([]);
  });

  it("accepts a model segment that is not trained (mask 0 on every token), not a mixed one", () => {
    const untrained = modelSegment([5, 6], 1, { lossMask: [0, 0], logprobs: [null, null] });
    expect(checkTrajectory(trajectory([prompt, untrained]))).toEqual([]);
    const mixed = modelSegment([5, 6], 1, { lossMask: [1, 0] });
    expect(checkTrajectory(trajectory([prompt, mixed])).map((v) => v.index)).toEqual([4]);
  });

  const cases: { name: string; t: Trajectory; want: { field: string; index?: number }[] }[] = [
    {
      name: "first segment not a prompt",
      t: trajectory([modelSegment([5], 1)]),
      want: [{ field: "segments[0].kind" }],
    },
    {
      name: "array lengths disagree inside a segment",
      t: trajectory([prompt, modelSegment([5, 6], 1, { logprobs: [-1] })]),
      want: [{ field: "segments[1].logprobs" }],
    },
    {
      name: "mask 1 inside a tool segment",
      t: trajectory([prompt, modelSegment([5], 1), toolSegment([7, 8], 1, { lossMask: [0, 1] })]),
      want: [{ field: "segments[2].lossMask", index: 5 }],
    },
    {
      name: "mask 0 inside a model segment",
      t: trajectory([prompt, modelSegment([5, 6], 1, { lossMask: [0, 1] })]),
      want: [{ field: "segments[1].lossMask", index: 3 }],
    },
    {
      name: "positive logprob on a model token (atropos sentinel leaked)",
      t: trajectory([prompt, modelSegment([5, 6], 1, { logprobs: [-0.1, 1.0] })]),
      want: [{ field: "segments[1].logprobs", index: 4 }],
    },
    {
      name: "bad token ids",
      t: trajectory([promptSegment([1, -2, 3.5])]),
      want: [{ field: "segments[0].tokenIds", index: 1 }],
    },
    {
      name: "tool call span outside the text",
      t: trajectory([
        prompt,
        modelSegment([5], 1, {
          text: "abc",
          toolCalls: [{ id: "call_0000", name: "f", arguments: {}, raw: "", span: [1, 9] }],
        }),
      ]),
      want: [{ field: "segments[1].toolCalls[0].span" }],
    },
    {
      name: "two cutoff segments",
      t: trajectory([
        prompt,
        modelSegment([5], 1, { cutoff: true }),
        modelSegment([6], 2, { cutoff: true }),
      ]),
      want: [{ field: "segments" }],
    },
    {
      name: "call lengths inconsistent with segments",
      t: calculatorEpisode({
        calls: [
          { rid: "a", inputLen: 13, outputLen: 5, finishReason: null },
          { rid: "b", inputLen: 20, outputLen: 4, finishReason: null },
          { rid: "c", inputLen: 30, outputLen: 9, finishReason: null },
        ],
      }),
      want: [{ field: "calls[0]" }, { field: "calls[1]" }, { field: "calls[2]" }],
    },
    {
      name: "every violation at once",
      t: trajectory([toolSegment([1, -1], 0, { lossMask: [1, 1], logprobs: [null] })]),
      want: [
        { field: "segments[0].kind" },
        { field: "segments[0].logprobs" },
        { field: "segments[0].tokenIds", index: 1 },
        { field: "segments[0].lossMask", index: 0 },
      ],
    },
  ];

  it.each(cases)("$name", ({ t, want }) => {
    const got = checkTrajectory(t);
    expect(
      got.map(({ field, index }) => (index === undefined ? { field } : { field, index })),
    ).toEqual(want);
    for (const v of got) expect(v.message.length).toBeGreaterThan(10);
  });

  it.each(cases)("$name: a proven fact skips only its own rule", ({ t }) => {
    const full = checkTrajectory(t);
    const rule = (v: { field: string }) => v.field.split(".").at(-1);
    expect(checkTrajectory(t, { tokenIds: true })).toEqual(
      full.filter((v) => rule(v) !== "tokenIds"),
    );
    expect(checkTrajectory(t, { lossMask: true })).toEqual(
      full.filter((v) => rule(v) !== "lossMask" || !v.message.includes("must have mask")),
    );
    expect(checkTrajectory(t, { modelLogprobs: true })).toEqual(
      full.filter((v) => rule(v) !== "logprobs" || !v.message.includes("> 0")),
    );
  });
});

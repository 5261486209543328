import { describe, expect, it } from "vitest";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import type { Segment } from "../trajectory/types";
import {
  cutoffReason,
  flattenTrajectory,
  placeholderPieces,
  segmentOfToken,
} from "./flatTrajectory";

const prompt = promptSegment([1, 2]);
const model = modelSegment([3], 1, { logprobs: [-0.5] });
const empty = toolSegment([], 2);

describe("flattenTrajectory", () => {
  it("concatenates segments, NaN for unrecorded logprobs", () => {
    const flat = flattenTrajectory(trajectory([prompt, empty, model]));
    expect(flat.tokenCount).toBe(3);
    expect([...flat.tokenIds]).toEqual([1, 2, 3]);
    expect([...flat.lossMask]).toEqual([0, 0, 1]);
    expect([...flat.logprobs]).toEqual([Number.NaN, Number.NaN, -0.5]);
    expect([...flat.segmentStarts]).toEqual([0, 2, 2, 3]);
    expect([0, 1, 2].map((t) => segmentOfToken(flat.segmentStarts, t))).toEqual([0, 0, 2]);
    expect(placeholderPieces(flat.tokenIds)).toEqual(["#1", "#2", "#3"]);
  });

  it("names the segment whose arrays disagree", () => {
    const bad: Segment = { ...model, logprobs: [] };
    expect(() => flattenTrajectory(trajectory([prompt, bad]))).toThrow(
      "trajectory t1: segment 1 (model, turn 1) has 0 logprobs for 1 tokens",
    );
    expect(() => flattenTrajectory(trajectory([{ ...prompt, lossMask: [0] }]))).toThrow(
      /1 lossMask entries for 2 tokens/,
    );
  });
});

describe("cutoffReason", () => {
  it.each([
    { segment: model, reason: undefined },
    { segment: { ...model, finishReason: { type: "stop" as const } }, reason: undefined },
    { segment: { ...model, cutoff: true }, reason: "iteration limit reached" },
    {
      segment: { ...model, cutoff: true, cutoffReason: "max_tool_iters (2)" },
      reason: "max_tool_iters (2)",
    },
    {
      segment: { ...model, finishReason: { type: "length" as const, length: 64 } },
      reason: "length: max tokens (64) reached",
    },
    {
      segment: { ...model, finishReason: { type: "abort" as const, message: "client gone" } },
      reason: "aborted: client gone",
    },
  ])("$reason", ({ segment, reason }) => {
    expect(cutoffReason(segment)).toBe(reason);
  });
});

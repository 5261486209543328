import { describe, expect, it } from "vitest";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { sameVocabulary } from "../tokenizer/chooseTokenizer";
import { hasSampledLogprobs, laneInPlaceOfSampled, logprobLaneProblem } from "./lanes";

const none = (n: number) => Array.from({ length: n }, () => null);

describe("laneInPlaceOfSampled", () => {
  const bare = trajectory([
    promptSegment([1, 2, 3]),
    modelSegment([4, 5], 1, { logprobs: none(2) }),
    toolSegment([6], 1),
    modelSegment([7], 2, { logprobs: none(1) }),
  ]);
  const lane = [null, -1, -2, -3, -4, -5, -6];

  it("puts the lane in place of the missing logprobs on trained tokens only", () => {
    const shown = laneInPlaceOfSampled({ ...bare, logprobLanes: { rescored: lane } }, "rescored");
    expect(shown?.segments.map((s) => s.logprobs)).toEqual([
      [null, null, null],
      [-3, -4],
      [null],
      [-6],
    ]);
    expect(shown && hasSampledLogprobs(shown)).toBe(true);
  });

  it("leaves a row with sampled logprobs, or without the lane, as it is (undefined)", () => {
    const sampled = trajectory([promptSegment([1]), modelSegment([2, 3], 1)]);
    expect(hasSampledLogprobs(sampled)).toBe(true);
    expect(
      laneInPlaceOfSampled({ ...sampled, logprobLanes: { rescored: [null, -1, -1] } }, "rescored"),
    ).toBeUndefined();
    expect(laneInPlaceOfSampled(bare, "rescored")).toBeUndefined();
  });
});

describe("logprobLaneProblem", () => {
  it.each([
    [[null, -0.5, 0, -Infinity], undefined],
    [[null, -0.5, 5.5], "token 2 has logprob 5.5, outside [-inf, 0]: not a log probability"],
    [[null, Number.NaN], "token 1 has logprob NaN, outside [-inf, 0]: not a log probability"],
    [[null, null, null], "all 3 logprobs are null: nothing was scored"],
  ])("%j -> %s", (lane, problem) => {
    expect(logprobLaneProblem(lane)).toBe(problem);
  });
});

describe("sameVocabulary", () => {
  it("reads Llama 3 and 3.1 as one vocabulary, Qwen3 as another", () => {
    expect(sameVocabulary("llama3", "llama3_1")).toBe(true);
    expect(sameVocabulary("qwen3", "llama3")).toBe(false);
    expect(sameVocabulary("qwen3", "qwen3")).toBe(true);
  });
});

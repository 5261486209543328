import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { finalAnswer } from "./finalAnswer";

const withLastModelText = (text: string | undefined) =>
  trajectory([
    promptSegment([1]),
    modelSegment([2], 1, { text: "first" }),
    modelSegment([3], 2, text === undefined ? {} : { text }),
  ]);

describe("finalAnswer", () => {
  it.each([
    [
      "<think>\nThe calculator returned 84.\n</think>\n\nThe answer is 84.<|im_end|>",
      "The answer is 84.",
    ],
    [
      '<think>\nhm\n</think>\n\n<tool_call>\n{"name": "calculator"}\n</tool_call><|im_end|>',
      undefined,
    ],
    ["<think>\nstill thinking when cut", undefined],
    ["Plain answer<|eot_id|>", "Plain answer"],
    [undefined, undefined],
  ])("of %j is %j", (text, expected) => {
    expect(finalAnswer(withLastModelText(text))).toBe(expected);
  });

  it("is undefined without a model segment", () => {
    expect(finalAnswer(trajectory([promptSegment([1])]))).toBeUndefined();
  });
});

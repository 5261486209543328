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

  // Each family's own syntax, from its data in core/families (not from names or regexes).
  it.each([
    [
      "gptoss",
      "<|channel|>analysis<|message|>23*19 is 437.<|end|><|start|>assistant<|channel|>final<|message|>It is 437.<|return|>",
      "It is 437.",
    ],
    ["gptoss", "<|channel|>analysis<|message|>cut while thinking", undefined],
    ["gemma3", "The answer is 437.<end_of_turn>", "The answer is 437."],
    ["deepseek_v3", "<think>\nhm\n</think>\n\nIt is 437.<｜end▁of▁sentence｜>", "It is 437."],
    ["llama3", "It is 437.<|eot_id|>", "It is 437."],
    ["llama3_1", "It is 437.<|eom_id|>", "It is 437."],
  ])(
    "of a %s turn %j is %j, named by the record or recognised from its text",
    (family, text, expected) => {
      const named = trajectory(withLastModelText(text).segments, { tokenizer: family });
      expect(finalAnswer(named)).toBe(expected);
      expect(finalAnswer(withLastModelText(text))).toBe(expected);
    },
  );

  it("leaves out the raw text of the turn's parsed tool calls", () => {
    const raw = '{"name": "calculator", "parameters": {"expression": "23*19"}}';
    const t = trajectory(
      [
        promptSegment([1]),
        modelSegment([2], 1, {
          text: `Let me compute. ${raw}<|eom_id|>`,
          toolCalls: [
            { id: "c1", name: "calculator", arguments: {}, raw, span: [16, 16 + raw.length] },
          ],
        }),
      ],
      { tokenizer: "llama3_1" },
    );
    expect(finalAnswer(t)).toBe("Let me compute.");
  });

  it("is undefined without a model segment", () => {
    expect(finalAnswer(trajectory([promptSegment([1])]))).toBeUndefined();
  });
});

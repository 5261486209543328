import { describe, expect, it } from "vitest";
import { recordColumns } from "./recordColumns";

describe("recordColumns", () => {
  it("lists a TRL row's short columns in order: rewards by function, advantage, step", () => {
    const prompt = "<|im_start|>user\nName the capital of Peru.<|im_end|>\n";
    const metadata = {
      step: "10",
      prompt,
      completion: "Cusco",
      accuracy_reward: 0,
      format_reward: Number.NaN,
      advantage: -0.7071049,
      solved: false,
    };
    expect(recordColumns(metadata, [prompt, "Cusco"])).toEqual([
      { name: "step", value: "10" },
      { name: "accuracy_reward", value: "0" },
      { name: "format_reward", value: "NaN" },
      { name: "advantage", value: "-0.707105" },
      { name: "solved", value: "false" },
    ]);
  });

  it("shows rewards by name as pairs, and leaves long, blank and nested values out", () => {
    const metadata = {
      reward: { accuracy: 1, format: 0.25, length: null },
      answer: "x".repeat(121),
      blank: "  ",
      info: { tags: ["a"] },
      messages: [{ role: "user", content: "hi" }],
      nothing: null,
    };
    expect(recordColumns(metadata, [])).toEqual([
      { name: "reward", value: "accuracy: 1, format: 0.25, length: null" },
    ]);
  });

  it("lists at most 32 columns", () => {
    const metadata = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}`, i]));
    const columns = recordColumns(metadata, []);
    expect(columns).toHaveLength(32);
    expect(columns.at(-1)).toEqual({ name: "c31", value: "31" });
  });
});

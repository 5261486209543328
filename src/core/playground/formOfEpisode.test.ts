import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { formOfEpisode } from "./formOfEpisode";

const stored = trajectory([promptSegment([1, 2]), modelSegment([3], 1)], {
  tokenizer: "llama3_1",
  samplingParams: { max_new_tokens: 512, temperature: 0.5, top_p: 0.9, skip_special_tokens: false },
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "What is 2+3?" },
    { role: "assistant", content: "5" },
  ],
  metadata: {
    tools: [{ type: "function", function: { name: "calculator", parameters: {} } }],
    max_iterations: 3,
    top_logprobs_num: 7,
    policy: "looping",
  },
});

describe("formOfEpisode", () => {
  it("fills the form with what the followed episode ran with", () => {
    expect(formOfEpisode(stored, ["qwen3", "llama3_1"])).toEqual({
      prompt: "What is 2+3?",
      system: "Be brief.",
      tools: ["calculator"],
      maxIterations: "3",
      topLogprobs: "7",
      policy: "looping",
      maxNewTokens: "512",
      temperature: "0.5",
      topP: "0.9",
      tokenizer: "llama3_1",
    });
  });

  it("leaves out what the record does not hold, and a tokenizer the catalog lacks", () => {
    const bare = trajectory([promptSegment([1])], {
      tokenizer: "/models/x",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(formOfEpisode(bare, ["qwen3"])).toEqual({ prompt: "hi", system: "" });
    expect(formOfEpisode(trajectory([promptSegment([1])]), [])).toEqual({});
  });
});

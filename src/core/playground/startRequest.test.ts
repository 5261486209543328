import { describe, expect, it } from "vitest";
import { buildStartRequest, type PlaygroundForm } from "./startRequest";

const form: PlaygroundForm = {
  system: "",
  prompt: "What is 12 * 7?",
  tools: ["calculator"],
  maxIterations: "",
  maxNewTokens: "",
  temperature: "",
  topP: "",
  topK: "",
  topLogprobs: "",
  policy: "calculator",
  tokenizer: "",
  isStreaming: true,
};

describe("buildStartRequest", () => {
  it("leaves empty fields to the server's defaults", () => {
    expect(buildStartRequest(form, true)).toEqual({
      ok: true,
      request: {
        prompt: "What is 12 * 7?",
        tools: ["calculator"],
        stream: true,
        policy: "calculator",
      },
    });
  });

  it("sends every filled field with its wire name", () => {
    const result = buildStartRequest(
      {
        ...form,
        system: "Be brief.",
        maxIterations: "2",
        maxNewTokens: "256",
        temperature: "0",
        topP: "0.9",
        topK: "-1",
        topLogprobs: "0",
        policy: "looping",
        tokenizer: "llama3_1",
        isStreaming: false,
      },
      true,
    );
    expect(result).toEqual({
      ok: true,
      request: {
        prompt: "What is 12 * 7?",
        system: "Be brief.",
        tools: ["calculator"],
        stream: false,
        max_iterations: 2,
        top_logprobs_num: 0,
        sampling_params: { max_new_tokens: 256, temperature: 0, top_p: 0.9, top_k: -1 },
        policy: "looping",
        tokenizer: "llama3_1",
      },
    });
  });

  it("never sends the simulator policy to a real SGLang", () => {
    const result = buildStartRequest(form, false);
    expect(result.ok && "policy" in result.request).toBe(false);
  });

  it.each([
    ["prompt", { prompt: "  " }, "the user prompt must not be empty"],
    ["maxNewTokens", { maxNewTokens: "1.5" }, "must be a whole number"],
    ["maxNewTokens", { maxNewTokens: "0" }, "must be between 1 and 1000000"],
    ["temperature", { temperature: "hot" }, 'not a number: "hot"'],
    ["topP", { topP: "1.5" }, "must be between 0 and 1"],
    ["topK", { topK: "-2" }, "must be between -1 and 1000000"],
    ["topLogprobs", { topLogprobs: "21" }, "must be between 0 and 20"],
    ["topLogprobs", { topLogprobs: "2.5" }, "must be a whole number"],
    ["maxIterations", { maxIterations: "-1" }, "must be between 0 and 1000"],
  ] as const)("names the bad field %s", (field, patch, message) => {
    expect(buildStartRequest({ ...form, ...patch }, true)).toEqual({
      ok: false,
      errors: { [field]: message },
    });
  });
});

import { describe, expect, it } from "vitest";
import {
  errorMessageOf,
  fitMaxNewTokens,
  generateRequestSchema,
  isContextLengthMessage,
  modelsListSchema,
} from "./sglang";

describe("errorMessageOf", () => {
  it.each([
    [
      { error: { message: "top_p must be in (0, 1], got 1.5." } },
      "top_p must be in (0, 1], got 1.5.",
    ],
    [{ object: "error", message: "queue full", type: "503", param: null, code: 503 }, "queue full"],
    [{ detail: "Not Found" }, "Not Found"],
    [
      { detail: [{ msg: "Input should be a valid list" }] },
      '[{"msg":"Input should be a valid list"}]',
    ],
    [{ text: "", meta_info: {} }, undefined],
    ["plain", undefined],
    [undefined, undefined],
  ])("%j → %s", (body, expected) => expect(errorMessageOf(body)).toBe(expected));
});

describe("isContextLengthMessage", () => {
  it.each([
    ["The input (40000 tokens) is longer than the model's context length (32768 tokens).", true],
    ["Requested token count exceeds the model's maximum context length of 32768 tokens.", true],
    ["REQUESTED TOKEN COUNT EXCEEDS THE MODEL'S MAXIMUM CONTEXT LENGTH", true],
    ["top_p must be in (0, 1], got 1.5.", false],
  ])("%s → %s", (message, expected) => expect(isContextLengthMessage(message)).toBe(expected));
});

describe("fitMaxNewTokens", () => {
  it.each([
    [32768, 100, 1024, 1024],
    [32768, 32000, 1024, 767],
    [32768, 40000, 1024, 0],
  ])("context %i, prompt %i, wanted %i → %i", (ctx, prompt, wanted, expected) =>
    expect(fitMaxNewTokens(ctx, prompt, wanted)).toBe(expected),
  );
});

describe("schemas", () => {
  it("accept the spec's /v1/models shape and reject an empty input_ids request", () => {
    expect(
      modelsListSchema.parse({
        object: "list",
        data: [
          {
            id: "m",
            object: "model",
            created: 1,
            owned_by: "sglang",
            root: "m",
            parent: null,
            max_model_len: 8,
          },
        ],
      }).data[0]?.max_model_len,
    ).toBe(8);
    const bad = generateRequestSchema.safeParse({
      input_ids: [],
      sampling_params: {},
      return_logprob: true,
      logprob_start_len: -1,
      rid: "r",
      stream: false,
    });
    expect(bad.success).toBe(false);
  });
});

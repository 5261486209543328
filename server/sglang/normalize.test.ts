import { describe, expect, it } from "vitest";
import { finishReasonWireSchema } from "../../src/core/wire/sglang";
import { normalizeResponse, toFinishReason } from "./normalize";

describe("toFinishReason", () => {
  it.each([
    [
      { type: "stop", matched: 151645 },
      { type: "stop", matched: 151645 },
    ],
    [
      { type: "stop", matched: "</tool_call>" },
      { type: "stop", matched: "</tool_call>" },
    ],
    [
      { type: "stop", matched: [7, 8] },
      { type: "stop", matched: 7 },
    ],
    [
      { type: "length", length: 512 },
      { type: "length", length: 512 },
    ],
    [
      { type: "abort", message: "m" },
      { type: "abort", message: "m" },
    ],
    [
      { type: "abort", message: "m", status_code: 503, err_type: "X" },
      { type: "abort", message: "m", statusCode: 503, errType: "X" },
    ],
    [
      { type: "abort", message: "m", status_code: null, err_type: null },
      { type: "abort", message: "m" },
    ],
  ])("%j", (wire, expected) => {
    expect(toFinishReason(finishReasonWireSchema.parse(wire))).toEqual(expected);
  });
});

describe("normalizeResponse", () => {
  it.each([
    [{ output_ids: [1] }, "field meta_info"],
    [{ meta_info: { id: "r", finish_reason: { type: "weird" } } }, "field meta_info.finish_reason"],
    [
      { output_ids: [1, 1.5], meta_info: { id: "r" } },
      "field output_ids: expected a list of token ids (non-negative integers), element 1 is 1.5",
    ],
    [
      { output_ids: [1], meta_info: { id: "r", output_token_logprobs: [[-1, -3, null]] } },
      "field meta_info.output_token_logprobs: expected a list of [logprob|null, token_id, text|null] tuples, element 0 is [-1,-3,null]",
    ],
    [
      { output_ids: [1, 2], meta_info: { id: "r", output_token_logprobs: [[-1, 1, null]] } },
      "1 entries for 2",
    ],
  ])("names the bad field: %j", (json, message) => {
    const outcome = normalizeResponse(json, "stub/generate");
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toContain("stub/generate: ");
    expect(!outcome.ok && outcome.error).toContain(message);
  });

  it("accepts an abort without any ids (abort before prefill) as an empty output", () => {
    const outcome = normalizeResponse(
      {
        text: "",
        meta_info: { id: "r", finish_reason: { type: "abort", message: "Abort before prefill" } },
      },
      "w",
    );
    expect(outcome.ok && outcome.value.outputIds).toEqual([]);
    expect(outcome.ok && outcome.value.outputLogprobs).toBeUndefined();
  });
});

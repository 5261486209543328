import { describe, expect, it } from "vitest";
import { finishReasonWireSchema } from "../../src/core/wire/sglang";
import {
  type GenerateResult,
  mergeStreamChunk,
  normalizeResponse,
  toFinishReason,
} from "./normalize";

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

function chunk(ids: number[], text: string, total?: number): GenerateResult {
  const outcome = normalizeResponse(
    {
      text,
      output_ids: ids,
      meta_info: {
        id: "r",
        finish_reason: null,
        ...(total === undefined ? {} : { completion_tokens: total }),
      },
    },
    "chunk",
    true,
  );
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

describe("mergeStreamChunk", () => {
  it.each([
    ["cumulative", [chunk([1], "a", 1), chunk([1, 2], "ab", 2)], [1, 2], "ab"],
    ["delta", [chunk([1], "a", 1), chunk([2], "b", 2)], [1, 2], "ab"],
    ["delta repeating the same id", [chunk([5], "x", 1), chunk([5], "x", 2)], [5, 5], "x"],
    ["delta without counts: shorter", [chunk([1, 2], "ab"), chunk([3], "c")], [1, 2, 3], "abc"],
    [
      "delta without counts: not a prefix",
      [chunk([1], "a"), chunk([2, 3], "bc")],
      [1, 2, 3],
      "abc",
    ],
    ["cumulative without counts", [chunk([1], "a"), chunk([1, 2], "ab")], [1, 2], "ab"],
  ])("%s", (_name, chunks, ids, text) => {
    const merged = chunks.reduce<GenerateResult | undefined>(mergeStreamChunk, undefined);
    expect(merged?.outputIds).toEqual(ids);
    expect(merged?.text).toBe(text);
  });
});

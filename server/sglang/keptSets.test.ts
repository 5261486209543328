import { describe, expect, it } from "vitest";
import { normalizeResponse } from "./normalize";
import { StreamFold } from "./streamFold";

/*
 * Kept sets (docs/sglang.md "Kept sets"): slime's patched SGLang returns the ids its sampler kept
 * per output token, flat and cut by offsets. The client checks them, cuts them per token and folds
 * them through a stream like the top-k.
 */

const lp = (ids: number[]) => ids.map((id) => [-0.5, id, null]);

function reply(ids: number[], extra: Record<string, unknown>, completionTokens?: number) {
  return {
    text: "",
    output_ids: ids,
    meta_info: {
      id: "r1",
      finish_reason: null,
      output_token_logprobs: lp(ids),
      ...(completionTokens === undefined ? {} : { completion_tokens: completionTokens }),
      ...extra,
    },
  };
}

const kept = (ids: number[], offsets: number[]) => ({
  top_p_kept_token_ids: ids,
  top_p_kept_token_offsets: offsets,
});

describe("kept sets in a /generate reply", () => {
  it("cuts the flat ids per output token", () => {
    const out = normalizeResponse(reply([5, 6, 7], kept([5, 9, 6, 7, 8], [0, 2, 3, 5])), "r");
    expect(out.ok && out.value.outputKeptIds).toEqual([[5, 9], [6], [7, 8]]);
  });

  it("leaves them undefined when the server sends none (stock SGLang)", () => {
    const out = normalizeResponse(reply([5], {}), "r");
    expect(out.ok && out.value.outputKeptIds).toBeUndefined();
  });

  it.each([
    [kept([5], [0, 1, 1]), "top_p_kept_token_offsets has 3 entries for 1 output_ids"],
    [kept([5, 6], [0, 1]), "must run from 0 to 2"],
    [kept([5, 6], [1, 2]), "must run from 0 to 2"],
    [{ top_p_kept_token_ids: [5] }, "meta_info.top_p_kept_token_offsets is missing"],
    [{ top_p_kept_token_offsets: [0, 1] }, "meta_info.top_p_kept_token_ids is missing"],
  ])("refuses a malformed set, naming the key (%j)", (extra, message) => {
    const out = normalizeResponse(reply([5], extra), "upstream u");
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error).toContain(message);
    expect(!out.ok && out.error).toContain("upstream u");
  });

  it("refuses offsets that go back", () => {
    const out = normalizeResponse(reply([5, 6, 7], kept([5, 6, 7], [0, 2, 1, 3])), "r");
    expect(!out.ok && out.error).toContain(
      "top_p_kept_token_offsets[2] is 1, below the one before (2)",
    );
  });
});

function fold(chunks: ReturnType<typeof reply>[]) {
  const f = new StreamFold();
  for (const chunk of chunks) {
    const out = normalizeResponse(chunk, "chunk", true);
    if (!out.ok) throw new Error(out.error);
    f.add(out.value);
  }
  return f.result().outputKeptIds;
}

describe("kept sets through a stream", () => {
  it("folds delta chunks (incremental streaming output)", () => {
    const chunks = [
      reply([5, 6], kept([5, 9, 6], [0, 2, 3]), 2),
      reply([7], kept([7, 8], [0, 2]), 3),
    ];
    expect(fold(chunks)).toEqual([[5, 9], [6], [7, 8]]);
  });

  it("folds cumulative chunks, each carrying every token so far", () => {
    const chunks = [
      reply([5, 6], kept([5, 9, 6], [0, 2, 3]), 2),
      reply([5, 6, 7], kept([5, 9, 6, 7, 8], [0, 2, 3, 5]), 3),
    ];
    expect(fold(chunks)).toEqual([[5, 9], [6], [7, 8]]);
  });

  it("holds null for tokens of chunks that carried none", () => {
    const chunks = [reply([5], {}, 1), reply([6], kept([6], [0, 1]), 2)];
    expect(fold(chunks)).toEqual([null, [6]]);
  });
});

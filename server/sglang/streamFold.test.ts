import { describe, expect, it } from "vitest";
import type { GenerateResult } from "./normalize";
import { normalizeResponse } from "./normalize";
import { StreamFold } from "./streamFold";

function chunk(
  ids: readonly number[],
  text: string,
  total?: number,
  logprobs?: readonly number[],
): GenerateResult {
  const outcome = normalizeResponse(
    {
      text,
      output_ids: ids,
      meta_info: {
        id: "r",
        finish_reason: null,
        ...(total === undefined ? {} : { completion_tokens: total }),
        ...(logprobs ? { output_token_logprobs: logprobs.map((lp, i) => [lp, ids[i], null]) } : {}),
      },
    },
    "chunk",
    true,
  );
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

function fold(chunks: readonly GenerateResult[]): StreamFold {
  const f = new StreamFold();
  for (const c of chunks) f.add(c);
  return f;
}

describe("StreamFold", () => {
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
    const result = fold(chunks).result();
    expect(result.outputIds).toEqual(ids);
    expect(result.text).toBe(text);
  });

  it("each step hands on what its chunk added, cumulative or delta alike", () => {
    const cumulative = new StreamFold();
    const a = cumulative.add(chunk([1, 2], "ab", 2, [-1, -2]));
    const b = cumulative.add(chunk([1, 2, 3], "abc", 3, [-1, -2, -3]));
    expect([a.delta, b.delta]).toMatchObject([
      { ids: [1, 2], logprobs: [-1, -2], text: "ab", tokens: 2 },
      { ids: [3], logprobs: [-3], text: "c", tokens: 3 },
    ]);
    const delta = new StreamFold();
    delta.add(chunk([1, 2], "ab", 2, [-1, -2]));
    expect(delta.add(chunk([3], "c", 3, [-3])).delta).toMatchObject({
      ids: [3],
      logprobs: [-3],
      text: "c",
      tokens: 3,
    });
    expect(delta.result().outputLogprobs).toEqual([-1, -2, -3]);
  });

  it("keeps logprobs aligned with ids when some chunks carry none", () => {
    const result = fold([chunk([1], "a", 1), chunk([2], "b", 2, [-2])]).result();
    expect(result.outputLogprobs).toEqual([null, -2]);
  });
});

// One 5,000-token streamed turn cost 81 s of server CPU, because every chunk copied the
// whole turn held so far. Work is counted here, not timed: the elements each step hands on, and
// every read of a chunk's arrays.

/** A chunk whose arrays count each element read into `reads`. */
function countedChunk(c: GenerateResult, reads: { n: number }): GenerateResult {
  const counted = <T>(list: readonly T[] | undefined) =>
    list === undefined
      ? undefined
      : new Proxy(list, {
          get(target, key, receiver) {
            if (typeof key === "string" && /^\d+$/.test(key)) reads.n++;
            return Reflect.get(target, key, receiver);
          },
        });
  return {
    ...c,
    outputIds: counted(c.outputIds) ?? [],
    outputLogprobs: counted(c.outputLogprobs),
  };
}

/** Folds a turn of `tokens` tokens sent one token per chunk; counts the work. */
function foldTurn(tokens: number, mode: "delta" | "delta without counts") {
  const reads = { n: 0 };
  const f = new StreamFold();
  let handedOn = 0;
  let textHandedOn = 0;
  for (let i = 0; i < tokens; i++) {
    const total = mode === "delta" ? i + 1 : undefined;
    const text = String.fromCharCode(97 + (i % 26));
    const step = f.add(countedChunk(chunk([i % 1000], text, total, [-0.5]), reads));
    handedOn += step.delta.ids.length + step.delta.logprobs.length;
    textHandedOn += step.delta.text.length;
  }
  const result = f.result();
  expect(result.outputIds).toHaveLength(tokens);
  expect(result.text).toHaveLength(tokens);
  return { reads: reads.n, handedOn, textHandedOn };
}

describe("StreamFold work", () => {
  for (const mode of ["delta", "delta without counts"] as const) {
    it(`is linear in the turn's tokens (${mode} chunks): counted, 5,000 tokens`, () => {
      const small = foldTurn(1000, mode);
      const large = foldTurn(5000, mode);
      // Every element is handed on once: 2 arrays × tokens, and one character per token.
      expect(large.handedOn).toBe(2 * 5000);
      expect(large.textHandedOn).toBe(5000);
      // Each chunk's elements are read a bounded number of times, however much is held.
      expect(large.reads).toBeLessThanOrEqual(4 * 2 * 5000);
      // 5× the tokens, 5× the work (a fold copying what it holds per chunk does 25×).
      expect(large.reads / small.reads).toBeCloseTo(5, 1);
    });
  }
});

import { describe, expect, it } from "vitest";
import { checkPrefixInvariant } from "./prefixInvariant";

describe("checkPrefixInvariant", () => {
  it.each([
    ["no calls", []],
    ["one call", [{ inputIds: [1, 2], outputIds: [3] }]],
    [
      "each input extends the previous input + output",
      [
        { inputIds: [1, 2], outputIds: [3] },
        { inputIds: [1, 2, 3, 4], outputIds: [5, 6] },
        { inputIds: [1, 2, 3, 4, 5, 6, 7], outputIds: [] },
      ],
    ],
  ])("accepts %s", (_label, calls) => {
    expect(checkPrefixInvariant(calls)).toEqual({ ok: true });
  });

  it.each([
    [
      "the previous output re-encoded differently",
      [
        { inputIds: [1, 2], outputIds: [3, 4] },
        { inputIds: [1, 2, 3, 9, 5], outputIds: [6] },
      ],
      { callIndex: 1, position: 3, expected: 4, actual: 9 },
      "call 1: input_ids[3] is 9 but call 0's output has 4 there",
    ],
    [
      "the history rewritten in the prompt part",
      [
        { inputIds: [1, 2], outputIds: [3] },
        { inputIds: [1, 2, 3, 4], outputIds: [5] },
        { inputIds: [1, 7, 3, 4, 5], outputIds: [] },
      ],
      { callIndex: 2, position: 1, expected: 2, actual: 7 },
      "call 2: input_ids[1] is 7 but call 1's input has 2 there",
    ],
    [
      "an input that drops the EOS of the previous output",
      [
        { inputIds: [1, 2], outputIds: [3, 151645] },
        { inputIds: [1, 2, 3], outputIds: [] },
      ],
      { callIndex: 1, position: 3, expected: 151645, actual: undefined },
      "call 1: input_ids has 3 tokens, shorter than call 0's input + output (4)",
    ],
  ])("reports the first violation: %s", (_label, calls, where, message) => {
    expect(checkPrefixInvariant(calls)).toEqual({ ok: false, ...where, message });
  });
});

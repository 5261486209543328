import { describe, expect, it } from "vitest";
import {
  buildTextIndex,
  findLowConfidence,
  findMismatchAbove,
  findText,
  findTokenId,
  tokenAtChar,
} from "./tokenSearch";

const pieces = ["The", " cat", " sat", ".\n", "The", " end"];
const index = buildTextIndex(pieces);

describe("findText", () => {
  it.each([
    { query: "cat", from: undefined, token: 1 },
    { query: "The", from: undefined, token: 0 },
    { query: "the", from: 0, token: 4 },
    { query: "the", from: 4, token: 0 },
    { query: "t s", from: undefined, token: 1 },
    { query: ".\nThe", from: 0, token: 3 },
    { query: "dog", from: 0, token: undefined },
    { query: "", from: 0, token: undefined },
  ])("$query from $from -> $token", ({ query, from, token }) => {
    expect(findText(index, query, from)).toBe(token);
  });

  it("maps character offsets to tokens", () => {
    expect([0, 2, 3, 6, 7, 11, 13].map((c) => tokenAtChar(index, c))).toEqual([
      0, 0, 1, 1, 2, 3, 4,
    ]);
  });
});

describe("findTokenId and findLowConfidence", () => {
  const ids = Int32Array.from([5, 7, 5, 9]);
  it.each([
    { id: 5, from: 0, token: 2 },
    { id: 5, from: 2, token: 0 },
    { id: 9, from: undefined, token: 3 },
    { id: 4, from: 0, token: undefined },
  ])("token id $id from $from -> $token", ({ id, from, token }) => {
    expect(findTokenId(ids, id, from)).toBe(token);
  });

  const logprobs = Float64Array.from([-5, Number.NaN, -0.1, -3, -4, Number.NaN]);
  const mask = Uint8Array.from([0, 1, 1, 1, 1, 1]);
  it.each([
    { threshold: -2, from: undefined, token: 3 },
    { threshold: -2, from: 3, token: 4 },
    { threshold: -2, from: 4, token: 3 },
    { threshold: -10, from: 0, token: undefined },
  ])(
    "below $threshold from $from -> $token (mask 0 and unrecorded skipped)",
    ({ threshold, from, token }) => {
      expect(findLowConfidence(logprobs, mask, threshold, from)).toBe(token);
    },
  );
});

describe("findMismatchAbove", () => {
  // δ per token; NaN where the lanes were not compared (mask 0 or a lane missing).
  const delta = Float64Array.from([Number.NaN, 0.05, -0.6, 0.2, Number.NaN, 0.9]);
  it.each([
    { threshold: 0.5, from: undefined, token: 2 },
    { threshold: 0.5, from: 2, token: 5 },
    { threshold: 0.5, from: 5, token: 2 },
    { threshold: 0.1, from: 2, token: 3 },
    { threshold: 1, from: 0, token: undefined },
  ])(
    "|δ| above $threshold from $from -> $token (either sign; NaN skipped)",
    ({ threshold, from, token }) => {
      expect(findMismatchAbove(delta, threshold, from)).toBe(token);
    },
  );
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  fastTokenIds,
  isIntArray,
  isLogprobArray,
  isMask01Array,
  isTokenIdArray,
  provesSpans,
  type SpanArrays,
  safeParseFast,
} from "./fastArrays";
import { logprobsSchema, mask01Schema, tokenIdsSchema } from "./wireSchemas";

// Values JSON lines (and Python's NaN/Infinity) can hold, weighted toward the edge cases.
const element = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 2, 0.5, -100, Number.NaN, Infinity, -Infinity, null, "1", true),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, -(2 ** 60)),
  fc.integer({ min: -5, max: 200_000 }),
  fc.double(),
  fc.constant([1]),
  fc.constant({}),
);
const arrays = fc.oneof(fc.array(element, { maxLength: 12 }), element);

describe("fast per-token predicates accept exactly what the zod schemas accept", () => {
  const cases = [
    { name: "token ids", fast: isTokenIdArray, exact: tokenIdsSchema },
    { name: "int arrays (atropos masks)", fast: isIntArray, exact: z.array(z.int()) },
    { name: "0/1 masks", fast: isMask01Array, exact: mask01Schema },
    { name: "logprobs", fast: isLogprobArray, exact: logprobsSchema },
  ];
  it.each(cases)("$name", ({ fast, exact }) => {
    fc.assert(
      fc.property(arrays, (value) => {
        expect(fast(value)).toBe(exact.safeParse(value).success);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    { value: [0, 1, -0], mask: true, ids: true },
    { value: [1, 2.5], mask: false, ids: false },
    { value: [3, -1], mask: false, ids: false },
    { value: [null], mask: false, ids: false },
    { value: [], mask: true, ids: true },
  ])("table: $value", ({ value, mask, ids }) => {
    expect(isMask01Array(value)).toBe(mask);
    expect(isTokenIdArray(value)).toBe(ids);
  });
});

describe("safeParseFast", () => {
  const exact = z.object({ status: z.enum(["ok"]), token_ids: tokenIdsSchema });
  const fast = exact.extend({ token_ids: fastTokenIds });

  it("returns the input's arrays on success, uncopied", () => {
    const value = { status: "ok", token_ids: [1, 2, 3] };
    const result = safeParseFast(fast, exact, value);
    expect(result.success && result.data.token_ids).toBe(value.token_ids);
  });

  it.each([
    { value: { status: "ok", token_ids: [1, -2] }, path: ["token_ids", 1] },
    { value: { status: "no", token_ids: [1.5] }, path: ["status"] },
    { value: { status: "ok", token_ids: "x" }, path: ["token_ids"] },
  ])("reports the exact schema's first issue at $path", ({ value, path }) => {
    const result = safeParseFast(fast, exact, value);
    const expected = exact.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toEqual(expected.error?.issues[0]);
    expect(result.error?.issues[0]?.path).toEqual(path);
  });
});

describe("provesSpans", () => {
  // prompt [0,2), model [2,4), tool [4,5), as ours and strands store them (every array full length).
  const spans = [
    { kind: "prompt", start: 0, end: 2 },
    { kind: "model", start: 2, end: 4 },
    { kind: "tool", start: 4, end: 5 },
  ];
  const full = (): SpanArrays => ({
    token_ids: [1, 2, 3, 4, 5],
    loss_mask: [0, 0, 1, 1, 0],
    logprobs: [null, null, -0.5, -1, 0.5],
  });
  // The same tokens as slime stores them: mask and logprobs for the response [2,5) only.
  const response = (logprobs: unknown[] | null = [-0.5, -1, 0]): SpanArrays => ({
    token_ids: [1, 2, 3, 4, 5],
    loss_mask: [1, 1, 0],
    logprobs,
  });
  it.each([
    { name: "full arrays", arrays: full(), offset: 0, proves: true },
    { name: "response arrays after offset 2", arrays: response(), offset: 2, proves: true },
    {
      name: "response logprobs with a null",
      arrays: response([-0.5, -1, null]),
      offset: 2,
      proves: true,
    },
    { name: "no logprobs on the wire", arrays: response(null), offset: 2, proves: true },
    {
      name: "no mask on the wire",
      arrays: { ...response(), loss_mask: undefined },
      offset: 2,
      proves: true,
    },
    {
      name: "bad prompt id before offset",
      arrays: { ...response(), token_ids: [1, -2, 3, 4, 5] },
      offset: 2,
      proves: false,
    },
    { name: "a span across the offset", arrays: response(), offset: 1, proves: false },
    {
      name: "positive model logprob (double array)",
      arrays: response([-0.5, 0.5, 0]),
      offset: 2,
      proves: false,
    },
    {
      name: "positive model logprob (with a null)",
      arrays: response([0.5, -1, null]),
      offset: 2,
      proves: false,
    },
    { name: "positive tool logprob", arrays: response([-0.5, -1, 0.5]), offset: 2, proves: true },
    {
      name: "tool mask 1",
      arrays: { ...response(), loss_mask: [1, 1, 1] },
      offset: 2,
      proves: false,
    },
    { name: "string logprob", arrays: response([-0.5, "x", 0]), offset: 2, proves: false },
    {
      name: "mask shorter than its spans",
      arrays: { ...response(), loss_mask: [1, 1] },
      offset: 2,
      proves: false,
    },
  ])("$name", ({ arrays, offset, proves }) => {
    expect(provesSpans(arrays, spans, offset)).toBe(proves);
  });
});

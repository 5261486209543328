import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  fastTokenIds,
  isIntArray,
  isLogprobArray,
  isMask01Array,
  isTokenIdArray,
  provesMaskRuns,
  provesSpans,
  type SpanArrays,
  safeParseFast,
} from "./fastArrays";
import { maskRuns } from "./maskSegments";
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
  type Arrays = { token_ids: unknown[]; loss_mask: unknown[]; logprobs: unknown[] };
  const full = (edit: Partial<Arrays> = {}): Arrays => ({
    token_ids: [1, 2, 3, 4, 5],
    loss_mask: [0, 0, 1, 1, 0],
    logprobs: [null, null, -0.5, -1, 0.5],
    ...edit,
  });
  it.each([
    { name: "valid arrays", arrays: full(), proves: true },
    { name: "null-free logprobs", arrays: full({ logprobs: [0, 0, -0.5, -1, 0] }), proves: true },
    { name: "bad prompt id", arrays: full({ token_ids: [1, -2, 3, 4, 5] }), proves: false },
    { name: "prompt mask 1", arrays: full({ loss_mask: [1, 0, 1, 1, 0] }), proves: false },
    {
      name: "model logprob > 0",
      arrays: full({ logprobs: [null, null, 0.5, -1, 0] }),
      proves: false,
    },
    { name: "string logprob", arrays: full({ logprobs: [null, "x", -0.5, -1, 0] }), proves: false },
    { name: "mask too short", arrays: full({ loss_mask: [0, 0, 1, 1] }), proves: false },
  ])("$name", ({ arrays, proves }) => {
    expect(provesSpans(arrays, spans)).toBe(proves);
  });
});

describe("provesMaskRuns", () => {
  // Tokens as slime stores them: prompt [0,2), then mask and logprobs for the response [2,5) only.
  const response = (edit: Partial<SpanArrays> = {}): SpanArrays => ({
    token_ids: [1, 2, 3, 4, 5],
    loss_mask: [1, 1, 0],
    logprobs: [-0.5, -1, 0],
    ...edit,
  });
  const cut = ["prompt 0-2", "model 2-4", "tool 4-5"];
  it.each([
    { name: "valid response arrays", arrays: response(), spans: cut },
    { name: "logprobs with a null", arrays: response({ logprobs: [-0.5, -1, null] }), spans: cut },
    { name: "no logprobs", arrays: response({ logprobs: null }), spans: cut },
    {
      name: "no mask: one model run",
      arrays: response({ loss_mask: undefined }),
      spans: ["prompt 0-2", "model 2-5"],
    },
    { name: "positive tool logprob", arrays: response({ logprobs: [-0.5, -1, 0.5] }), spans: cut },
    { name: "bad prompt id", arrays: response({ token_ids: [1, -2, 3, 4, 5] }), spans: undefined },
    {
      name: "bad response id",
      arrays: response({ token_ids: [1, 2, 3, 4.5, 5] }),
      spans: undefined,
    },
    {
      name: "positive model logprob",
      arrays: response({ logprobs: [-0.5, 0.5, 0] }),
      spans: undefined,
    },
    {
      name: "positive model logprob, null array",
      arrays: response({ logprobs: [0.5, -1, null] }),
      spans: undefined,
    },
    { name: "mask 2", arrays: response({ loss_mask: [1, 2, 0] }), spans: undefined },
    { name: "string logprob", arrays: response({ logprobs: [-0.5, "x", 0] }), spans: undefined },
    { name: "mask too short", arrays: response({ loss_mask: [1, 1] }), spans: undefined },
  ])("$name", ({ arrays, spans }) => {
    expect(provesMaskRuns(arrays, 2)?.map((s) => `${s.kind} ${s.start}-${s.end}`)).toEqual(spans);
  });

  // Response arrays (mask, logprobs) of `r` entries after a prompt, edited at one place.
  const line = fc
    .record({
      prompt: fc.array(fc.nat(9), { maxLength: 3 }),
      response: fc.array(
        fc.record({ id: fc.nat(9), mask: fc.constantFrom(0, 1), lp: fc.constantFrom(-1, 0, null) }),
        { maxLength: 8 },
      ),
      key: fc.constantFrom("token_ids", "loss_mask", "logprobs", "none"),
      at: fc.nat(),
      value: element,
      hasMask: fc.boolean(),
      hasLogprobs: fc.boolean(),
    })
    .map((g) => {
      const arrays = {
        token_ids: [...g.prompt, ...g.response.map((t): unknown => t.id)],
        loss_mask: g.hasMask ? g.response.map((t): unknown => t.mask) : undefined,
        logprobs: g.hasLogprobs ? g.response.map((t): unknown => t.lp) : undefined,
      };
      const edited = g.key === "none" ? undefined : arrays[g.key];
      if (edited && edited.length > 0) edited[g.at % edited.length] = g.value;
      return { arrays, offset: g.prompt.length };
    });

  it("proves exactly what the schemas and the model-logprob rule accept, cut as maskRuns cuts", () => {
    fc.assert(
      fc.property(line, ({ arrays, offset }) => {
        const { token_ids: ids, loss_mask: mask, logprobs: lps } = arrays;
        const isMaskValid = mask === undefined || mask01Schema.safeParse(mask).success;
        const isValid =
          tokenIdsSchema.safeParse(ids).success &&
          isMaskValid &&
          (lps === undefined || logprobsSchema.safeParse(lps).success) &&
          (lps ?? []).every((lp, j) => mask?.[j] === 0 || !(typeof lp === "number" && lp > 0));
        const got = provesMaskRuns(arrays, offset);
        expect(got !== undefined).toBe(isValid);
        if (!got) return;
        const prompt = offset > 0 ? [{ kind: "prompt", start: 0, end: offset }] : [];
        const n = ids.length;
        // isValid: the mask is the 0/1 mask01Schema accepted.
        const runs = mask
          ? maskRuns(mask01Schema.parse(mask), offset)
          : n > offset
            ? [{ kind: "model", start: offset, end: n }]
            : [];
        expect(got).toEqual([...prompt, ...runs]);
      }),
      { numRuns: 3000 },
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sliceSegments, spansFromMask } from "../trajectory/flatten";
import { maskRuns, nulls, segmentsByKind } from "./maskSegments";

const mask = fc.array(fc.constantFrom<0 | 1>(0, 1), { maxLength: 40 });

describe("maskRuns", () => {
  it.each([
    { mask: [], offset: 0, spans: [] },
    { mask: [1, 1, 0, 1], offset: 3, spans: ["model 3-5", "tool 5-6", "model 6-7"] },
    { mask: [0], offset: 0, spans: ["tool 0-1"] },
  ] as const)("$mask after $offset prompt tokens", ({ mask: m, offset, spans }) => {
    expect(maskRuns(m, offset).map((s) => `${s.kind} ${s.start}-${s.end}`)).toEqual(spans);
  });

  it("finds the runs spansFromMask finds after the prompt", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 }), mask, (prompt, response) => {
        const full: (0 | 1)[] = [...nulls(prompt).map((): 0 => 0), ...response];
        const expected = spansFromMask(full, prompt).filter((s) => s.kind !== "prompt");
        expect(maskRuns(response, prompt)).toEqual(expected);
      }),
    );
  });
});

describe("segmentsByKind", () => {
  it("equals sliceSegments over the flat arrays when masks follow the runs", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 }), mask, (prompt, response) => {
        const lossMask: (0 | 1)[] = [...nulls(prompt).map((): 0 => 0), ...response];
        const tokenIds = lossMask.map((_, k) => 100 + k);
        const logprobs = lossMask.map((m, k) => (m === 1 ? -k / 10 : null));
        const spans = spansFromMask(lossMask, prompt);
        const built = segmentsByKind(spans, tokenIds, (s) => logprobs.slice(s.start, s.end));
        expect(built).toEqual(sliceSegments({ tokenIds, lossMask, logprobs }, spans));
      }),
    );
  });
});

describe("constant runs", () => {
  it.each([0, 1, 5, 70_000])("nulls(%i) is a fresh packed array of that many nulls", (n) => {
    const a = nulls(n);
    const b = nulls(n);
    expect(a).toHaveLength(n);
    expect(a.every((v) => v === null)).toBe(true);
    expect(a).not.toBe(b);
    expect(Object.keys(a)).toHaveLength(n);
  });

  it("hands out masks no later call can change", () => {
    const spans = [
      { kind: "prompt", start: 0, end: 3 },
      { kind: "model", start: 3, end: 5 },
    ] as const;
    const first = segmentsByKind(spans, [1, 2, 3, 4, 5], (s) => nulls(s.end - s.start));
    const mask = first[1]?.lossMask;
    if (!Array.isArray(mask)) throw new Error("expected a model segment");
    mask[0] = 0; // a caller editing its own copy must not leak into the next read
    const second = segmentsByKind(spans, [1, 2, 3, 4, 5], (s) => nulls(s.end - s.start));
    expect(second.map((s) => s.lossMask)).toEqual([
      [0, 0, 0],
      [1, 1],
    ]);
  });
});

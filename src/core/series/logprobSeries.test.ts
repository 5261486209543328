import { describe, expect, it } from "vitest";
import { huge } from "../../test/demoTrajectory";
import { flattenTrajectory } from "../layout/flatTrajectory";
import { downsampleLogprobs, pickFromBuckets, segmentBands } from "./logprobSeries";

describe("downsampleLogprobs", () => {
  it("keeps min, max, mean and the min position per bucket, skipping mask 0 and unrecorded", () => {
    const logprobs = Float64Array.from([-9, -1, -3, Number.NaN, -2, -0.5]);
    const mask = Uint8Array.from([0, 1, 1, 1, 1, 1]);
    expect(downsampleLogprobs(logprobs, mask, 3)).toEqual([
      { position: 0.5, start: 0, end: 2, range: [-1, -1], mean: -1, minAt: 1 },
      { position: 2.5, start: 2, end: 4, range: [-3, -3], mean: -3, minAt: 2 },
      { position: 4.5, start: 4, end: 6, range: [-2, -0.5], mean: -1.25, minAt: 4 },
    ]);
  });

  it("leaves buckets without recorded logprobs empty (never 0)", () => {
    const out = downsampleLogprobs(Float64Array.from([Number.NaN, -1]), Uint8Array.from([1, 0]), 2);
    expect(out.map((b) => b.range)).toEqual([undefined, undefined]);
    expect(out.map((b) => b.mean)).toEqual([undefined, undefined]);
  });

  it("never makes more buckets than tokens and rejects bad sizes", () => {
    expect(downsampleLogprobs(Float64Array.from([-1]), Uint8Array.from([1]), 10)).toHaveLength(1);
    expect(() => downsampleLogprobs(new Float64Array(1), new Uint8Array(1), 0)).toThrow(
      /maxBuckets/,
    );
  });

  it("covers 131,072 tokens with contiguous buckets", () => {
    const flat = flattenTrajectory(huge().trajectory);
    const out = downsampleLogprobs(flat.logprobs, flat.lossMask, 2000);
    expect(out).toHaveLength(2000);
    expect(out[0]?.start).toBe(0);
    expect(out[out.length - 1]?.end).toBe(131_072);
    out.forEach((bucket, i) => {
      if (i > 0) expect(bucket.start).toBe(out[i - 1]?.end);
      if (bucket.range) expect(bucket.range[0]).toBeLessThanOrEqual(bucket.range[1]);
    });
    // Every model-token logprob is somewhere inside its bucket's range.
    let lowest = 0;
    flat.logprobs.forEach((lp, i) => {
      if (flat.lossMask[i] === 1 && lp < lowest) lowest = lp;
    });
    expect(Math.min(...out.map((b) => b.range?.[0] ?? 0))).toBe(lowest);
  });
});

describe("segmentBands", () => {
  it("merges adjacent same-kind segments and drops empty ones", () => {
    const starts = Int32Array.from([0, 5, 9, 9, 12, 20]);
    expect(segmentBands(starts, ["prompt", "model", "tool", "tool", "model"])).toEqual([
      { start: 0, end: 5, kind: "prompt" },
      { start: 5, end: 9, kind: "model" },
      { start: 9, end: 12, kind: "tool" },
      { start: 12, end: 20, kind: "model" },
    ]);
  });
});

describe("pickFromBuckets", () => {
  const logprobs = Float64Array.from([Number.NaN, Number.NaN, -0.5, -3, -1, -0.1, Number.NaN, -2]);
  const mask = Uint8Array.from([0, 0, 1, 1, 1, 1, 0, 1]);
  const buckets = downsampleLogprobs(logprobs, mask, 4); // [0,2) [2,4) [4,6) [6,8)

  it.each([
    { token: 0, lands: 0, why: "a bucket with no trained token: its start" },
    { token: 1.7, lands: 0, why: "a fractional position inside it" },
    { token: 2, lands: 3, why: "the lowest logprob of its bucket" },
    { token: 5, lands: 4, why: "the lowest logprob of its bucket" },
    { token: 7, lands: 7, why: "the last bucket" },
    { token: 99, lands: 7, why: "past the end: the last bucket" },
  ])("token $token lands on $lands ($why)", ({ token, lands }) => {
    expect(pickFromBuckets(buckets, token)).toBe(lands);
  });

  it("an empty series lands where it was clicked", () => {
    expect(pickFromBuckets([], 12.4)).toBe(12);
  });
});

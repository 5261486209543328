import { describe, expect, it } from "vitest";
import type { Segment } from "../trajectory/types";
import {
  logprobSumsByPosition,
  meanLogprobByPosition,
  POSITION_BUCKET_STARTS,
  positionBucketOf,
} from "./positionSeries";

function segment(kind: Segment["kind"], logprobs: (number | null)[]): Segment {
  const mask = kind === "model" ? 1 : 0;
  return {
    kind,
    turn: kind === "prompt" ? 0 : 1,
    tokenIds: logprobs.map((_, k) => k),
    lossMask: logprobs.map(() => mask),
    logprobs,
  };
}

describe("positionBucketOf", () => {
  it.each([
    [0, 0],
    [1023, 0],
    [1024, 1],
    [2047, 1],
    [2048, 2],
    [4095, 2],
    [5000, 3],
    [10_000_000, POSITION_BUCKET_STARTS.length - 1],
  ])("token %i is in bucket %i", (token, bucket) => expect(positionBucketOf(token)).toBe(bucket));
});

describe("logprobSumsByPosition", () => {
  it("sums trainable finite logprobs by trajectory token index", () => {
    const prompt = segment("prompt", new Array<null>(1000).fill(null));
    // Model tokens at 1000..1099: 24 in bucket 0, 76 in bucket 1; one NaN is skipped.
    const logprobs = new Array<number>(100).fill(-0.5);
    logprobs[50] = Number.NaN;
    const model = segment("model", logprobs);
    // Tool tokens carry numbers too but have mask 0: never counted.
    const tool = segment("tool", [-9, -9]);
    const sums = logprobSumsByPosition([prompt, model, tool]);
    expect(sums.counts).toEqual([24, 75]);
    expect(sums.sums).toEqual([-12, -37.5]);
  });

  it("is empty when nothing is trained", () => {
    expect(logprobSumsByPosition([segment("prompt", [null, null])])).toEqual({
      sums: [],
      counts: [],
    });
  });
});

describe("meanLogprobByPosition", () => {
  it("averages over rows weighted by tokens and skips empty buckets", () => {
    const bars = meanLogprobByPosition([
      { sums: [-1, 0, -6], counts: [1, 0, 3] },
      undefined,
      { sums: [-3], counts: [1] },
    ]);
    expect(bars).toEqual([
      { start: 0, end: 1024, label: "0–1k", mean: -2, tokens: 2 },
      { start: 2048, end: 4096, label: "2k–4k", mean: -2, tokens: 3 },
    ]);
  });

  it("labels the open-ended last bucket", () => {
    const last = POSITION_BUCKET_STARTS.length - 1;
    const counts = new Array<number>(last + 1).fill(0);
    counts[last] = 1;
    const sums = counts.map((c) => -c);
    expect(meanLogprobByPosition([{ sums, counts }])).toEqual([
      { start: 1048576, end: Number.POSITIVE_INFINITY, label: "1024k–", mean: -1, tokens: 1 },
    ]);
  });
});

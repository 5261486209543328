import { describe, expect, it } from "vitest";
import { callRows, retriesText } from "./callRows";
import type { GenerateCall, Segment } from "./types";

function segment(kind: Segment["kind"], n: number, turn = 0): Segment {
  return {
    kind,
    turn,
    tokenIds: Array.from({ length: n }, (_, i) => i + 1),
    lossMask: new Array(n).fill(kind === "model" ? 1 : 0),
    logprobs: new Array(n).fill(kind === "model" ? -0.1 : null),
  };
}

const stop = { type: "stop", matched: 151645 } as const;
// prompt 10 | model 4 | tool 6 | model 3  (token offsets 0, 10, 14, 20)
const segments = [
  segment("prompt", 10),
  segment("model", 4, 1),
  segment("tool", 6),
  segment("model", 3, 2),
];
const calls: GenerateCall[] = [
  {
    rid: "r1",
    inputLen: 10,
    outputLen: 4,
    finishReason: stop,
    cachedTokens: 0,
    e2eLatency: 0.5,
    weightVersion: "v1",
    upstream: "http://a:1",
  },
  {
    rid: "r2",
    inputLen: 20,
    outputLen: 3,
    finishReason: { type: "length", length: 3 },
    cachedTokens: 15,
    upstream: "http://b:2",
  },
];

describe("callRows", () => {
  it("gives one row per call, with the cache hit rate and the segment it produced", () => {
    expect(callRows({ segments, calls })).toEqual([
      {
        index: 0,
        rid: "r1",
        upstream: "http://a:1",
        inputLen: 10,
        newTokens: 4,
        cachedTokens: 0,
        cacheHitRate: 0,
        latencySeconds: 0.5,
        finishReason: stop,
        weightVersion: "v1",
        segmentIndex: 1,
        firstToken: 10,
        attempts: 1,
        retries: [],
      },
      {
        index: 1,
        rid: "r2",
        upstream: "http://b:2",
        inputLen: 20,
        newTokens: 3,
        cachedTokens: 15,
        cacheHitRate: 0.75,
        finishReason: { type: "length", length: 3 },
        segmentIndex: 3,
        firstToken: 20,
        attempts: 1,
        retries: [],
      },
    ]);
  });

  it("ties no segment to a call that produced no tokens or that the segments contradict", () => {
    const odd: GenerateCall[] = [
      { rid: "empty", inputLen: 10, outputLen: 0, finishReason: { type: "abort" } },
      { rid: "off", inputLen: 12, outputLen: 4, finishReason: stop },
      { rid: "long", inputLen: 20, outputLen: 9, finishReason: stop },
    ];
    const rows = callRows({ segments, calls: odd });
    expect(rows.map((r) => r.segmentIndex)).toEqual([undefined, undefined, undefined]);
    expect(rows.map((r) => "cacheHitRate" in r)).toEqual([false, false, false]);
  });

  it("has no rows without calls", () => {
    expect(callRows({ segments })).toEqual([]);
  });
});

describe("retries of a call", () => {
  const retried: GenerateCall = {
    rid: "r3",
    inputLen: 10,
    outputLen: 4,
    finishReason: stop,
    retries: [
      { rid: "r1", upstream: "http://a:1", error: "SglangHttpError: 503", backoffMs: 480 },
      { rid: "r2", error: "SglangConnectionError: refused", backoffMs: 1020 },
    ],
  };

  it("counts the attempts and lists each failed rid, error and backoff", () => {
    const [row] = callRows({ segments, calls: [retried] });
    expect(row?.attempts).toBe(3);
    expect(row?.retries.map((r) => r.rid)).toEqual(["r1", "r2"]);
    expect(row && retriesText(row)).toEqual({
      cell: "3 (2 failed, 1.5 s backoff)",
      lines: [
        "attempt 1: r1 on http://a:1 failed (SglangHttpError: 503); waited 480 ms",
        "attempt 2: r2 failed (SglangConnectionError: refused); waited 1.0 s",
      ],
    });
  });

  it("says 1 for a call whose first attempt answered", () => {
    const [row] = callRows({ segments, calls: calls.slice(0, 1) });
    expect(row && retriesText(row)).toEqual({ cell: "1", lines: [] });
  });
});

import { describe, expect, it } from "vitest";
import { keptSetReader } from "../trajectory/keptSets";
import type { Trajectory } from "../trajectory/types";
import { type DecompositionInput, decomposeMismatch, TERM, verdictOf } from "./decomposition";
import { laneConvention, trajectoryDecomposition } from "./decompositionInputs";

const L = Math.log;
// One position, three candidates with p_1 = (0.5, 0.3, 0.2) recorded at T = 1; the token is id 10.
const TOP = [
  { tokenId: 10, logprob: L(0.5) },
  { tokenId: 11, logprob: L(0.3) },
  { tokenId: 12, logprob: L(0.2) },
];

function one(overrides: Partial<DecompositionInput>, a: number, b: number) {
  return decomposeMismatch({
    a: [a],
    b: [b],
    tokenIds: [10],
    laneA: { temperature: 1, renormalized: false },
    laneB: { temperature: 1, renormalized: false },
    topK: [TOP],
    topKTemperature: 1,
    ...overrides,
  });
}

describe("decomposeMismatch", () => {
  it("leaves δ to the residual when both lanes share temperature and support", () => {
    const d = one({}, L(0.5), L(0.4));
    expect(d.temperature[0]).toBe(0);
    expect(d.support[0]).toBe(0);
    expect(d.residual[0]).toBeCloseTo(L(0.5 / 0.4), 12);
    expect(d.status[0]).toBe(TERM.compared);
  });

  it("computes the temperature term from a complete top-k, by hand", () => {
    // p_0.5 ∝ p_1²: 0.25, 0.09, 0.04 over 0.38.
    const pT = 0.25 / 0.38;
    const d = one({ laneB: { temperature: 0.5, renormalized: false } }, L(0.5), L(pT) + 0.01);
    expect(d.temperature[0]).toBeCloseTo(L(0.5) - L(pT), 12);
    expect(d.residual[0]).toBeCloseTo(-0.01, 12);
    expect(d.status[0]).toBe(TERM.compared);
  });

  it("reads a top-k recorded at the sampling temperature back to T = 1", () => {
    // The same distribution recorded at T = 0.5: logprobs of (0.25, 0.09, 0.04) / 0.38.
    const atHalf = [0.25, 0.09, 0.04].map((p, j) => ({ tokenId: 10 + j, logprob: L(p / 0.38) }));
    const d = one(
      { laneB: { temperature: 0.5, renormalized: false }, topK: [atHalf], topKTemperature: 0.5 },
      L(0.5),
      L(0.25 / 0.38),
    );
    expect(d.temperature[0]).toBeCloseTo(L(0.5) - L(0.25 / 0.38), 12);
    expect(d.residual[0]).toBeCloseTo(0, 12);
  });

  it("labels a partial top-k approximate, and an absent or unknown input unknown (NaN)", () => {
    const partial = one(
      { laneB: { temperature: 0.5, renormalized: false }, topK: [TOP.slice(0, 2)] },
      L(0.5),
      L(0.6),
    );
    expect(partial.status[0]).toBe(TERM.compared | TERM.temperatureApprox);
    // Over the two listed ids: p_0.5 = 0.25 / 0.34 and p_1 = 0.5 / 0.8.
    expect(partial.temperature[0]).toBeCloseTo(L(0.5 / 0.8) - L(0.25 / 0.34), 12);
    expect(partial.summary.approximate).toBe(1);
    const none = one({ laneB: { temperature: 0.5, renormalized: false }, topK: [null] }, -1, -1);
    expect(none.status[0]).toBe(TERM.compared | TERM.temperatureUnknown);
    expect(Number.isNaN(none.temperature[0])).toBe(true);
    expect(Number.isNaN(none.residual[0])).toBe(true);
    expect(none.summary.verdict).toBe("unchecked");
    const unknownT = one({ laneB: {} }, -1, -1);
    expect(unknownT.status[0]).toBe(TERM.compared | TERM.temperatureUnknown | TERM.supportUnknown);
  });

  it("takes the support term from a recorded kept set: log of its mass", () => {
    const d = one(
      { laneB: { temperature: 1, renormalized: true }, kept: () => [10, 11] },
      L(0.5),
      L(0.5 / 0.8),
    );
    expect(d.support[0]).toBeCloseTo(L(0.8), 12);
    expect(d.residual[0]).toBeCloseTo(0, 12);
    expect(d.status[0]).toBe(TERM.compared);
  });

  it("computes the kept set from top_p over the top-k when none is recorded", () => {
    // Sorted 0.5, 0.3, 0.2; mass before: 0, 0.5, 0.8; top_p 0.6 keeps the first two.
    const d = one(
      {
        laneB: { temperature: 1, renormalized: true },
        filter: { topP: 0.6, topK: -1, minP: 0 },
        samplingTemperature: 1,
      },
      L(0.5),
      L(0.5 / 0.8),
    );
    expect(d.support[0]).toBeCloseTo(L(0.8), 12);
    expect(d.status[0]).toBe(TERM.compared | TERM.keptComputed);
    const topK1 = one(
      {
        laneB: { temperature: 1, renormalized: true },
        filter: { topP: 1, topK: 1, minP: 0 },
        samplingTemperature: 1,
      },
      L(0.5),
      0,
    );
    expect(topK1.support[0]).toBeCloseTo(L(0.5), 12);
  });

  it("says nothing was dropped when the sampling params filter nothing, renormalised or not", () => {
    const d = one({ laneB: { temperature: 1 }, filter: { topP: 1, topK: -1, minP: 0 } }, -1, -1);
    expect(d.support[0]).toBe(0);
    expect(d.status[0]).toBe(TERM.compared);
  });

  it("skips untrained tokens and tokens a lane lacks", () => {
    const d = decomposeMismatch({
      a: [-1, null, -1],
      b: [-1, -1, -1],
      mask: [1, 1, 0],
      tokenIds: [1, 2, 3],
      laneA: { temperature: 1, renormalized: false },
      laneB: { temperature: 1, renormalized: false },
    });
    expect([...d.status]).toEqual([TERM.compared, 0, 0]);
    expect(d.summary.compared).toBe(1);
  });
});

describe("verdictOf", () => {
  it("is spurious when the residual leaves at most a quarter of δ's out-of-band tokens", () => {
    expect(verdictOf(10, 10, 8, 2)).toBe("spurious");
    expect(verdictOf(10, 10, 8, 3)).toBe("real");
    expect(verdictOf(10, 10, 0, 0)).toBe("none");
    expect(verdictOf(10, 9, 8, 0)).toBe("unchecked");
    // No token compared: nothing judged, never "within the band".
    expect(verdictOf(0, 0, 0, 0)).toBe("unchecked");
  });
});

function row(extra: Partial<Trajectory>): Trajectory {
  return {
    id: "r",
    source: { kind: "file", path: "x.jsonl", line: 1 },
    format: "slime",
    status: "completed",
    segments: [
      { kind: "prompt", turn: 0, tokenIds: [1, 2], lossMask: [0, 0], logprobs: [null, null] },
      {
        kind: "model",
        turn: 1,
        tokenIds: [10, 20],
        lossMask: [1, 1],
        logprobs: [L(0.5 / 0.8), -0.1],
        topLogprobs: [TOP, null],
      },
    ],
    metadata: {},
    ...extra,
  };
}

describe("trajectory inputs", () => {
  it("reads slime's kept set per response token and takes the sampled lane as renormalised", () => {
    const t = row({
      samplingParams: { temperature: 1, top_p: 0.6 },
      metadata: { rollout_top_p_token_ids: [10, 11, 20], rollout_top_p_token_offsets: [0, 2, 3] },
      logprobLanes: { rescored: [null, null, L(0.5), -0.1] },
    });
    expect(keptSetReader(t)?.(2)).toEqual([10, 11]);
    expect(keptSetReader(t)?.(3)).toEqual([20]);
    expect(keptSetReader(t)?.(1)).toBeUndefined();
    expect(laneConvention(t, "sampled")).toEqual({ temperature: 1, renormalized: true });
    const result = trajectoryDecomposition(t, ["rescored", "sampled"]);
    if (!result.ok) throw new Error(result.message);
    expect(result.result.support[2]).toBeCloseTo(L(0.8), 12);
    expect(result.result.residual[2]).toBeCloseTo(0, 12);
    // Token 3 has no top-k: its support term is unknown, so the row is not judged.
    expect(result.result.status[3]).toBe(TERM.compared | TERM.supportUnknown);
    expect(result.result.summary.verdict).toBe("unchecked");
  });

  it("reads verifiers' kept_tokens, counts per sampled token (a node) or per token (a trace)", () => {
    const node = row({ metadata: { kept_tokens: { ids: [10, 11, 20], counts: [2, 1] } } });
    expect(keptSetReader(node)?.(2)).toEqual([10, 11]);
    expect(keptSetReader(node)?.(3)).toEqual([20]);
    const trace = row({ metadata: { kept_tokens: { ids: [10, 11, 20], counts: [0, 0, 2, 1] } } });
    expect(keptSetReader(trace)?.(2)).toEqual([10, 11]);
    expect(keptSetReader(trace)?.(3)).toEqual([20]);
    const odd = row({ metadata: { kept_tokens: { ids: [10], counts: [1, 0, 0] } } });
    expect(keptSetReader(odd)?.(0)).toBeUndefined();
  });

  it("knows vLLM's logprobs modes, SGLang's rescoring, and nothing of other lanes", () => {
    const raw = row({ samplingParams: { temperature: 0.7, logprobs_mode: "raw_logprobs" } });
    expect(laneConvention(raw, "sampled")).toEqual({ temperature: 1, renormalized: false });
    const processed = row({
      samplingParams: { temperature: 0.7, logprobs_mode: "processed_logprobs" },
    });
    expect(laneConvention(processed, "sampled")).toEqual({ temperature: 0.7, renormalized: true });
    const plain = row({ samplingParams: { temperature: 0.7 } });
    expect(laneConvention(plain, "sampled")).toEqual({ temperature: 0.7, renormalized: false });
    const filtered = row({ samplingParams: { temperature: 0.7, top_p: 0.9 } });
    expect(laneConvention(filtered, "sampled")).toEqual({ temperature: 0.7 });
    // An episode recorded from SGLang's /generate: logprobs before filtering (docs/sglang.md).
    const call = { rid: "r", inputLen: 2, outputLen: 2, finishReason: null };
    const episode = { ...filtered, format: "rollout-lens/v1", calls: [call] };
    expect(laneConvention(episode, "sampled")).toEqual({ temperature: 0.7, renormalized: false });
    expect(laneConvention(plain, "rescored")).toEqual({ temperature: 1, renormalized: false });
    expect(laneConvention(plain, "trainer")).toEqual({});
    expect(laneConvention(row({}), "sampled")).toEqual({ temperature: undefined });
  });
});

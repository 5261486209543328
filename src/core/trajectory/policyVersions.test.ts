import { describe, expect, it } from "vitest";
import { policyVersions, segmentPolicies } from "./policyVersions";
import type { Segment, Trajectory } from "./types";

function seg(kind: Segment["kind"], n: number): Segment {
  const trained = kind === "model";
  return {
    kind,
    turn: 0,
    tokenIds: Array.from({ length: n }, (_, i) => i + 1),
    lossMask: Array.from({ length: n }, () => (trained ? 1 : 0)),
    logprobs: Array.from({ length: n }, () => (trained ? -0.1 : null)),
  };
}

// prompt 3, model 2, tool 2, model 3: 10 tokens, model tokens 3-4 and 7-9.
const base: Trajectory = {
  id: "t",
  source: { kind: "file" },
  format: "slime",
  status: "completed",
  metadata: {},
  segments: [seg("prompt", 3), seg("model", 2), seg("tool", 2), seg("model", 3)],
};

describe("policyVersions", () => {
  it("slime weight_versions: one per model turn, staleness behind the newest", () => {
    const v = policyVersions({ ...base, metadata: { weight_versions: ["5", "7"] } });
    expect(v?.source).toBe("weight_versions");
    expect(v?.latest).toBe("7");
    expect(v?.spans).toEqual([
      { start: 3, end: 5, version: "5", staleness: 2 },
      { start: 7, end: 10, version: "7", staleness: 0 },
    ]);
  });

  it("AReaL versions per token (-1 on prompt and tool tokens), a switch inside a turn", () => {
    const versions = [-1, -1, -1, 3, 4, -1, -1, 4, 4, 4];
    const v = policyVersions({ ...base, format: "areal", metadata: { versions } });
    expect(v?.source).toBe("versions");
    expect(v?.spans.map((s) => [s.start, s.end, s.version, s.staleness])).toEqual([
      [3, 4, "3", 1],
      [4, 5, "4", 0],
      [7, 10, "4", 0],
    ]);
  });

  it("AReaL output_versions per output token land on the model tokens in order", () => {
    const v = policyVersions({ ...base, metadata: { output_versions: [1, 1, 2, 2, 2] } });
    expect(v?.spans.map((s) => [s.start, s.end, s.version])).toEqual([
      [3, 5, "1"],
      [7, 10, "2"],
    ]);
  });

  it("a live episode: each /generate call's weight_version, non-numeric versions compared by name", () => {
    const calls = [
      { rid: "a", inputLen: 3, outputLen: 2, finishReason: null, weightVersion: "default" },
      { rid: "b", inputLen: 7, outputLen: 3, finishReason: null, weightVersion: "step-2" },
    ];
    const v = policyVersions({ ...base, format: "rollout-lens/v1", calls });
    expect(v?.source).toBe("meta_info.weight_version");
    expect(v?.spans.map((s) => [s.version, s.staleness])).toEqual([
      ["default", undefined],
      ["step-2", 0],
    ]);
  });

  it("none recorded, or arrays of the wrong length: undefined, nothing made up", () => {
    expect(policyVersions(base)).toBeUndefined();
    expect(policyVersions({ ...base, metadata: { versions: [1, 2] } })).toBeUndefined();
    expect(policyVersions({ ...base, metadata: { weight_versions: [] } })).toBeUndefined();
  });
});

describe("segmentPolicies", () => {
  const starts = [0, 3, 5, 7, 10];
  it("labels each model segment with its versions and staleness; none for the others", () => {
    const v = policyVersions({ ...base, metadata: { weight_versions: ["5", "7"] } });
    if (!v) throw new Error("no versions");
    expect(segmentPolicies(v, starts)).toEqual([
      undefined,
      { label: "weights 5 · 2 behind", staleness: 2 },
      undefined,
      { label: "weights 7 (newest)", staleness: 0 },
    ]);
  });

  it("a version switch inside a segment shows both and the largest staleness", () => {
    const v = policyVersions({
      ...base,
      metadata: { versions: [-1, -1, -1, 3, 4, -1, -1, 4, 4, 4] },
    });
    if (!v) throw new Error("no versions");
    expect(segmentPolicies(v, starts)[1]).toEqual({
      label: "weights 3–4 · up to 1 behind",
      staleness: 1,
    });
  });
});

import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { readRolloutLine } from "../formats/readRolloutLine";
import type { Trajectory } from "../trajectory/types";
import {
  createStepStatsBuilder,
  MISMATCH_NOT_RECORDED,
  mergeStepStats,
  runStepPoints,
  type StepStats,
  stepGroupsOf,
} from "./stepStats";

function trajectories(fixture: string): Trajectory[] {
  return fixtureLines(fixture).flatMap((line, k) => {
    const result = readRolloutLine(line, k + 1);
    return result.kind === "trajectories" ? result.trajectories : [];
  });
}

describe("step statistics", () => {
  it("NeMo-RL: mean reward and length, and the mismatch of generation vs trainer logprobs", () => {
    const stats = createStepStatsBuilder();
    for (const t of trajectories("reference-nemo-rl.jsonl")) stats.add(t);
    const s = stats.finish({ checked: 2, drifted: 1 });
    expect(s).toMatchObject({ trajectories: 2, errors: 0, reward: 0.5, length: 25 });
    expect(s.driftRate).toBe(0.5);
    // Trainable tokens only: |-0.31 - -0.3| + |-0.02 - -0.025| + 0 + 0.0001 on row 1, 0.001 x 8 on row 2.
    expect(s.mismatchTokens).toBe(12);
    expect(s.mismatch).toBeCloseTo((0.01 + 0.005 + 0.0001 + 0.008) / 12, 6);
    expect(s.mismatchNote).toBeUndefined();
  });

  it("one logprob series: mismatch is not recorded (said, not charted as 0)", () => {
    const stats = createStepStatsBuilder();
    for (const t of trajectories("reference-slime.jsonl")) stats.add(t);
    const s = stats.finish({ checked: 0, drifted: 0 });
    expect(s.mismatch).toBeUndefined();
    expect(s.mismatchNote).toBe(MISMATCH_NOT_RECORDED);
    expect(s.driftRate).toBeUndefined();
    expect(s.driftNote).toMatch(/no trajectory could be checked/);
  });

  it("a text-only file has rewards but no length, and says why drift is off", () => {
    const stats = createStepStatsBuilder();
    for (const t of trajectories("reference-verl.jsonl")) stats.add(t);
    stats.addError();
    const s = stats.finish({ reason: "this file holds decoded text only" });
    expect(s.trajectories).toBeGreaterThan(0);
    expect(s.reward).toBeTypeOf("number");
    expect(s.length).toBeUndefined();
    expect(s.errors).toBe(1);
    expect(s.driftNote).toBe("this file holds decoded text only");
  });
});

describe("run chart points", () => {
  const stats = (over: Partial<StepStats>): StepStats => ({
    trajectories: 2,
    errors: 0,
    reward: 1,
    rewarded: 2,
    length: 10,
    withTokens: 2,
    driftRate: 0,
    driftChecked: 2,
    mismatch: undefined,
    mismatchTokens: 0,
    mismatchNote: MISMATCH_NOT_RECORDED,
    ...over,
  });

  it("merges a step's shards with means weighted by what each counts", () => {
    const merged = mergeStepStats([
      stats({}),
      stats({
        trajectories: 6,
        reward: 0,
        rewarded: 6,
        length: 30,
        withTokens: 6,
        driftRate: 0.5,
        driftChecked: 6,
      }),
    ]);
    expect(merged).toMatchObject({ trajectories: 8, reward: 0.25, length: 25, driftRate: 0.375 });
    expect(merged?.mismatch).toBeUndefined();
    expect(merged?.mismatchNote).toBe(MISMATCH_NOT_RECORDED);
    // A shard with no reward does not pull the mean towards 0.
    expect(mergeStepStats([stats({}), stats({ reward: undefined, rewarded: 0 })])?.reward).toBe(1);
  });

  it("one point per step in step order; a step waits until all its files are in", () => {
    const points = runStepPoints([
      { step: 2, fileId: "f3", stats: stats({ reward: 0.5 }) },
      { step: 1, fileId: "f1", stats: stats({ reward: 1 }) },
      { step: 1, fileId: "f2", stats: stats({ reward: 0, rewarded: 2 }) },
      { step: 3, fileId: "f4", stats: stats({}) },
      { step: 3, fileId: "f5" },
    ]);
    expect(points.map((p) => [p.step, p.fileId, p.stats.reward])).toEqual([
      [1, "f1", 0.5],
      [2, "f3", 0.5],
    ]);
  });
});

describe("step group tallies", () => {
  const forest = (size: number, zeroVariance: boolean, duplicateSets: number[][]) => ({
    size,
    zeroVariance,
    duplicateSets,
  });

  it("count groups of two or more, their zero-variance ones and the repeated samples", () => {
    expect(
      stepGroupsOf([
        forest(4, true, [[0, 1, 2, 3]]),
        forest(3, false, [[0, 2]]),
        forest(1, false, []),
      ]),
    ).toEqual({ groups: 2, zeroVariance: 1, samples: 7, duplicates: 4 });
  });

  it("merge across a step's shards, and say why when a shard has none", () => {
    const base = createStepStatsBuilder();
    const one = base.finish(
      { reason: "x" },
      { groups: 2, zeroVariance: 1, samples: 8, duplicates: 3 },
    );
    const two = base.finish(
      { reason: "x" },
      { groups: 1, zeroVariance: 0, samples: 4, duplicates: 0 },
    );
    expect(mergeStepStats([one, two])?.groups).toEqual({
      groups: 3,
      zeroVariance: 1,
      samples: 12,
      duplicates: 3,
    });
    const big = base.finish({ reason: "x" }, { reason: "not built: the file is over 512 MiB" });
    const merged = mergeStepStats([one, big]);
    expect(merged?.groups).toBeUndefined();
    expect(merged?.groupsNote).toMatch(/over 512 MiB/);
  });
});

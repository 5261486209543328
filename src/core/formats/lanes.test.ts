import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { checkTrajectory } from "../trajectory/invariants";
import { laneNames, lanesFromArrays, laneValues, sampledLane, withLane } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import { writeAtroposGroup } from "./atropos";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";
import { readRolloutLine } from "./readRolloutLine";
import { writeRolloutLens } from "./rolloutLens";
import { writeSlime } from "./slime";
import { writeStrands } from "./strands";

function read(line: string): Trajectory[] {
  const result = readRolloutLine(line, 7);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  return result.trajectories;
}

function errorOf(line: string): { line: number; field?: string; message: string } {
  const result = readRolloutLine(line, 7);
  if (result.kind !== "error") throw new Error(`expected an error, got ${result.kind}`);
  return result.error;
}

function object(line: string): Record<string, unknown> {
  const parsed = parseJsonLine(line);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value as Record<string, unknown>;
}

const v1Line = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
const base = read(v1Line)[0] as Trajectory;
const n = sampledLane(base).length;
const trainer = sampledLane(base).map((v, k) => (v === null ? null : v - 0.001 * (k % 3)));
const rescored = sampledLane(base).map((v, k) => (k === 0 ? null : (v ?? -1.5) + 0.25));
const withLanes = withLane(withLane(base, "trainer", trainer), "rescored", rescored, {
  source: "sglang /generate rescore",
  model: "Qwen/Qwen3-4B-Instruct-2507",
  weightVersion: "7",
  createdAt: "2026-11-24T10:00:00.000Z",
});
const lanesLine = stringifyJsonLine(writeRolloutLens(withLanes));

describe("rollout-lens/v1 logprob lanes", () => {
  it("writes logprob_lanes and logprob_lane_info and reads them back exactly", () => {
    const wire = object(lanesLine);
    expect(wire.logprob_lanes).toEqual({ trainer, rescored });
    expect(wire.logprob_lane_info).toEqual({
      rescored: {
        source: "sglang /generate rescore",
        model: "Qwen/Qwen3-4B-Instruct-2507",
        weight_version: "7",
        created_at: "2026-11-24T10:00:00.000Z",
      },
    });
    const [back] = read(lanesLine);
    expect(back?.logprobLanes).toEqual({ trainer, rescored });
    expect(back?.logprobLaneInfo?.rescored?.weightVersion).toBe("7");
    expect(stringifyJsonLine(writeRolloutLens(back as Trajectory))).toBe(lanesLine);
  });

  it("a line without lanes writes none", () => {
    expect(object(stringifyJsonLine(writeRolloutLens(base)))).not.toHaveProperty("logprob_lanes");
  });

  it("names line and field when a lane is too short", () => {
    const wire = object(lanesLine);
    (wire.logprob_lanes as Record<string, unknown[]>).trainer?.pop();
    const error = errorOf(stringifyJsonLine(wire));
    expect(error.line).toBe(7);
    expect(error.field).toBe("logprob_lanes.trainer");
    expect(error.message).toContain(`${n - 1} entries but token_ids has ${n}`);
  });

  it("names the entry that is not a number", () => {
    const wire = object(lanesLine);
    const lane = (wire.logprob_lanes as Record<string, unknown[]>).trainer ?? [];
    lane[3] = "x";
    expect(errorOf(stringifyJsonLine(wire)).field).toBe("logprob_lanes.trainer[3]");
  });

  it("rejects info for a missing lane, info without created_at, and the reserved name", () => {
    const orphan = object(lanesLine);
    (orphan.logprob_lane_info as Record<string, unknown>).ghost = {
      source: "x",
      created_at: "2026-01-01T00:00:00Z",
    };
    expect(errorOf(stringifyJsonLine(orphan)).field).toBe("logprob_lane_info.ghost");
    const undated = object(lanesLine);
    delete (undated.logprob_lane_info as Record<string, Record<string, unknown>>).rescored
      ?.created_at;
    expect(errorOf(stringifyJsonLine(undated)).field).toBe("logprob_lane_info.rescored.created_at");
    const reserved = object(lanesLine);
    (reserved.logprob_lanes as Record<string, unknown>).sampled = trainer;
    expect(errorOf(stringifyJsonLine(reserved)).field).toBe("logprob_lanes.sampled");
  });

  it("checkTrajectory reports a lane of the wrong length", () => {
    const broken: Trajectory = { ...base, logprobLanes: { trainer: trainer.slice(1) } };
    expect(checkTrajectory(broken).map((v) => v.field)).toContain("logprobLanes.trainer");
    expect(() => withLane(base, "trainer", trainer.slice(1))).toThrow(/entries but the trajectory/);
  });

  it("resolves sampled, stored lanes and per-token arrays kept in metadata", () => {
    const extra: Trajectory = { ...withLanes, metadata: { ...base.metadata, old_lp: trainer } };
    expect(laneNames(extra)).toEqual(["sampled", "trainer", "rescored", "old_lp"]);
    expect(laneValues(extra, "sampled")).toEqual(sampledLane(base));
    expect(laneValues(extra, "old_lp")).toEqual(trainer);
    expect(laneValues(extra, "nope")).toBeUndefined();
  });

  it("lanesFromArrays places response-only arrays and skips mis-shaped ones", () => {
    expect(
      lanesFromArrays({ a: [-1, null], b: [1, 2, 3], c: null }, 4, { length: 2, offset: 2 }),
    ).toEqual({ logprobLanes: { a: [null, null, -1, null] } });
    expect(lanesFromArrays({ c: undefined }, 4)).toEqual({});
  });
});

describe("lanes the other formats carry", () => {
  const atroposLine = fixtureLines("reference-atropos.jsonl")[0] ?? "";
  const group = object(atroposLine);
  const rowTokens = group.tokens as number[][];
  const refs = rowTokens.map((row) => row.map((_, k) => -0.5 - k / 100));

  it("atropos ref_logprobs is the reference lane and is written back as ref_logprobs", () => {
    const line = stringifyJsonLine({ ...group, ref_logprobs: refs });
    const rows = read(line);
    expect(rows.map((t) => t.logprobLanes?.reference)).toEqual(refs);
    expect(rows[0]?.metadata).not.toHaveProperty("ref_logprobs");
    expect(writeAtroposGroup(rows)).toEqual(object(line));
  });

  it("atropos ref_logprobs of the wrong shape stays in metadata", () => {
    const line = stringifyJsonLine({ ...group, ref_logprobs: [refs[0]] });
    const rows = read(line);
    expect(rows[0]?.logprobLanes).toBeUndefined();
    expect(rows[0]?.metadata.ref_logprobs).toEqual([refs[0]]);
  });

  it("offers an atropos group's unknown per-row numeric lists as lanes, each row its own", () => {
    const entropy = rowTokens.map((row, i) => row.map((_, k) => i + k / 10));
    const rows = read(stringifyJsonLine({ ...group, token_entropy: entropy }));
    rows.forEach((t, i) => {
      expect(laneNames(t)).toContain("token_entropy");
      expect(laneValues(t, "token_entropy")).toEqual(entropy[i]);
    });
    // One list for a group of two is no row's lane but the first's.
    const short = read(stringifyJsonLine({ ...group, token_entropy: [entropy[0]] }));
    expect(laneValues(short[0] as Trajectory, "token_entropy")).toEqual(entropy[0]);
    expect(laneNames(short[1] as Trajectory)).not.toContain("token_entropy");
  });

  it("atropos keeps a rescored lane per row under logprob_lanes", () => {
    const rows = read(atroposLine).map((t) => withLane(t, "rescored", sampledLane(t)));
    const written = writeAtroposGroup(rows);
    expect(Object.keys(written.logprob_lanes as object)).toEqual(["rescored"]);
    const back = read(stringifyJsonLine(written));
    expect(back.map((t) => t.logprobLanes?.rescored)).toEqual(rows.map((t) => sampledLane(t)));
    const bad = { ...written, logprob_lanes: { rescored: [[-1], null] } };
    expect(errorOf(stringifyJsonLine(bad)).field).toBe("logprob_lanes.rescored[0]");
  });

  it("slime teacher_log_probs is the teacher lane after the prompt, written back response-only", () => {
    const sample = object(fixtureLines("reference-slime.jsonl")[0] ?? "");
    const r = sample.response_length as number;
    const teacher = Array.from({ length: r }, (_, k) => -0.1 * k);
    const line = stringifyJsonLine({ ...sample, teacher_log_probs: teacher });
    const [t] = read(line);
    const lane = t?.logprobLanes?.teacher ?? [];
    const promptLength = (sample.tokens as number[]).length - r;
    expect(lane.slice(0, promptLength).every((v) => v === null)).toBe(true);
    expect(lane.slice(promptLength)).toEqual(teacher);
    const again = writeSlime(t as Trajectory);
    expect(again.teacher_log_probs).toEqual(teacher);
    expect(again).not.toHaveProperty("logprob_lanes");
  });

  it("strands lines carry lanes under the same keys as rollout-lens/v1", () => {
    const [t] = read(fixtureLines("reference-strands.jsonl")[0] ?? "");
    const lane = sampledLane(t as Trajectory).map((v) => v ?? -2);
    const tagged = withLane(t as Trajectory, "trainer", lane, {
      source: "test",
      createdAt: "2026-11-24T00:00:00Z",
    });
    const line = stringifyJsonLine(writeStrands(tagged));
    const [back] = read(line);
    expect(back?.logprobLanes?.trainer).toEqual(lane);
    expect(back?.logprobLaneInfo?.trainer?.source).toBe("test");
    expect(back?.metadata).not.toHaveProperty("logprob_lanes");
    expect(stringifyJsonLine(writeStrands(back as Trajectory))).toBe(line);
  });
});

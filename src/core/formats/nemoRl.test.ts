import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { summarizeTrajectory } from "../files/rowSummary";
import { defaultLanes } from "../mismatch/trajectoryMismatch";
import { flattenSegments } from "../trajectory/flatten";
import { laneNames, laneValues } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";
import { writeNemoRl } from "./nemoRl";
import { readRolloutLine } from "./readRolloutLine";
import { writeRolloutLens } from "./rolloutLens";
import { tokenLanesOf } from "./tokenLanes";

const lines = fixtureLines("reference-nemo-rl.jsonl");

function read(line: string, lineNo = 1): Trajectory {
  const result = readRolloutLine(line, lineNo);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  expect(result.format).toBe("nemo-rl");
  const [t] = result.trajectories;
  if (!t) throw new Error("no trajectory");
  return t;
}

function parsed(line: string): Record<string, unknown> {
  const result = parseJsonLine(line);
  if (!result.ok) throw new Error(result.message);
  return result.value as Record<string, unknown>;
}

describe("NeMo-RL train_data reader", () => {
  it("drops the padding after input_lengths and cuts prompt / model segments from the mask", () => {
    const t = read(lines[0] ?? "");
    expect(t.segments.map((s) => [s.kind, s.tokenIds.length])).toEqual([
      ["prompt", 13],
      ["model", 4],
    ]);
    expect(t.reward).toBe(1);
    expect(t.segments[1]?.logprobs).toEqual([-0.31, -0.02, -0.004, -0.0006]);
    // 0.0 at untrained positions is NeMo-RL's placeholder, not a probability of 1.
    expect(t.segments[0]?.logprobs.every((v) => v === null)).toBe(true);
    expect(t.logprobPlaceholder).toBe(0);
  });

  it("reads a multi-turn line: tool/env tokens between model turns", () => {
    const t = read(lines[1] ?? "", 2);
    expect(t.segments.map((s) => [s.kind, s.turn, s.tokenIds.length])).toEqual([
      ["prompt", 0, 13],
      ["model", 1, 4],
      ["tool", 1, 12],
      ["model", 2, 4],
    ]);
  });

  it("reads prev_logprobs as the trainer lane and generation_logprobs as the sampled one", () => {
    const t = read(lines[0] ?? "");
    const trainer = laneValues(t, "trainer");
    expect(trainer?.length).toBe(17);
    expect(trainer?.slice(13)).toEqual([-0.3, -0.025, -0.004, -0.0007]);
    // 0.0 off the mask is NeMo-RL's placeholder, as for generation_logprobs.
    expect(trainer?.slice(0, 13).every((v) => v === null)).toBe(true);
    expect(laneValues(t, "sampled")?.slice(13)).toEqual([-0.31, -0.02, -0.004, -0.0006]);
    expect(defaultLanes(t)).toEqual(["trainer", "sampled"]);
    expect("prev_logprobs" in t.metadata).toBe(false);
    expect(summarizeTrajectory(t, 0, "nemo-rl").reward).toBe(1);
  });

  it("offers every other per-token numeric array as a lane, cut to the real tokens", () => {
    const value = parsed(lines[0] ?? "");
    const pad = [0, 0, 0];
    const entropy = [Array.from({ length: 17 }, (_, k) => k / 10).concat(pad)];
    const t = read(JSON.stringify({ ...value, token_entropy: entropy }));
    expect(laneNames(t)).toEqual(["sampled", "trainer", "advantages", "token_entropy"]);
    expect(laneValues(t, "token_entropy")?.[16]).toBe(1.6);
    expect(tokenLanesOf(t).map((l) => [l.key, l.values.length])).toEqual([["advantages", 17]]);
    expect(writeNemoRl(t)).toEqual({ ...value, token_entropy: entropy });
  });

  it("reads back a lane added by rescoring (logprob_lanes) and writes it under that key", () => {
    const value = parsed(lines[0] ?? "");
    const rescored = Array.from({ length: 17 }, (_, k) => (k < 13 ? null : -0.5));
    const line = { ...value, logprob_lanes: { rescored } };
    const t = read(JSON.stringify(line));
    expect(laneValues(t, "rescored")).toEqual(rescored);
    expect(writeNemoRl(t)).toEqual(line);
  });

  it.each(lines.map((line, i) => ({ line, i })))(
    "line $i round-trips: read -> write -> read equal, written back as read (padding included)",
    ({ line, i }) => {
      const t = read(line, i + 1);
      const back = writeNemoRl(t);
      expect(back).toEqual(parsed(line));
      expect(read(stringifyJsonLine(back), i + 1)).toEqual(t);
      // And through rollout-lens/v1, as the app stores it.
      const rl = readRolloutLine(stringifyJsonLine(writeRolloutLens(t)), i + 1);
      const viaRl = rl.kind === "trajectories" ? rl.trajectories[0] : undefined;
      expect(viaRl && writeNemoRl(viaRl)).toEqual(parsed(line));
    },
  );

  it("reads flat (not batched) lines and boolean masks", () => {
    const value = parsed(lines[1] ?? "");
    const unwrap = (v: unknown) => (Array.isArray(v) ? v[0] : v);
    const flat = Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === "idx" ? v : unwrap(v)]),
    );
    flat.token_loss_mask = (flat.token_loss_mask as number[]).map((m) => m === 1);
    const t = read(JSON.stringify(flat));
    expect(flattenSegments(t.segments).tokenIds).toEqual(unwrap(value.token_ids));
    expect(writeNemoRl(t)).toEqual(flat);
  });

  it("names the field of a bad line", () => {
    const value = parsed(lines[0] ?? "");
    const short = { ...value, generation_logprobs: [[-1, -2]] };
    const r1 = readRolloutLine(JSON.stringify(short), 4);
    expect(r1.kind === "error" && r1.error).toEqual({
      line: 4,
      field: "generation_logprobs",
      message: "generation_logprobs has 2 entries but token_ids has 20",
    });
    const mask = structuredClone(value) as { token_loss_mask: number[][] };
    if (mask.token_loss_mask[0]) mask.token_loss_mask[0][3] = 2;
    const r2 = readRolloutLine(JSON.stringify(mask), 5);
    expect(r2.kind === "error" && r2.error.field).toBe("token_loss_mask[3]");
    const long = { ...value, input_lengths: [21] };
    const r3 = readRolloutLine(JSON.stringify(long), 6);
    expect(r3.kind === "error" && r3.error.message).toBe("21 exceeds the 20 token_ids");
  });
});

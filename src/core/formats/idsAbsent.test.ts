import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { idsAbsentReason, trajectoryIdsAbsentReason } from "./idsAbsent";
import { readRolloutLine } from "./readRolloutLine";
import { FORMAT_IDS } from "./types";

function first(file: string, line = 0) {
  const result = readRolloutLine(fixtureLines(file)[line] ?? "", line + 1);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  const [t] = result.trajectories;
  if (!t) throw new Error("no trajectory");
  return t;
}

describe("a clear word on id-less files", () => {
  it("verl is text only: the reason names the dump and what to enable", () => {
    const reason = idsAbsentReason("verl");
    expect(reason).toMatch(/decoded text only/);
    expect(reason).toMatch(/rollout_data_dir/);
    expect(reason).toMatch(/calculate_log_probs/);
  });

  it("every format that carries ids has no reason", () => {
    expect(FORMAT_IDS.filter((f) => idsAbsentReason(f) !== undefined)).toEqual([
      "verl",
      "prime",
      "art",
      "skyrl-eval",
      "nemo-rl-val",
      "areal",
      "miles-trajectory",
      "text-table",
      "tinker-summary",
    ]);
  });

  it("a verl line opens with its text and reward, and says why drift is off", () => {
    const t = first("reference-verl.jsonl");
    expect(t.reward).toBe(1);
    expect(t.metadata.input).toMatch(/What is 2\+2/);
    expect(trajectoryIdsAbsentReason(t)).toBe(idsAbsentReason("verl"));
  });

  it("an ATIF document without ids gets its own reason; one with ids none", () => {
    expect(trajectoryIdsAbsentReason(first("reference-atif.jsonl", 3))).toMatch(
      /completion_token_ids/,
    );
    expect(trajectoryIdsAbsentReason(first("reference-atif.jsonl", 0))).toBeUndefined();
    expect(trajectoryIdsAbsentReason(first("reference-strands.jsonl"))).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { idsAbsentReason } from "./idsAbsent";
import { readRolloutLine } from "./readRolloutLine";
import { expandVersionRle } from "./textDumps";
import type { FormatId } from "./types";

function readAll(file: string, format: FormatId) {
  return fixtureLines(`dumps/${file}`).map((line, i) => {
    const r = readRolloutLine(line, i + 1, undefined, file);
    if (r.kind !== "trajectories") throw new Error(JSON.stringify(r));
    expect(r.format).toBe(format);
    const [t] = r.trajectories;
    if (!t) throw new Error("no trajectory");
    return t;
  });
}

describe("text-only default dumps", () => {
  it("SkyRL dumped_evals: prompt and response as messages, score as reward, a length stop truncated", () => {
    const ts = readAll("skyrl/dumped_evals/global_step_10_evals/gsm8k.jsonl", "skyrl-eval");
    expect(ts.map((t) => [t.reward, t.status, t.messages?.map((m) => m.role)])).toEqual([
      [1, "completed", ["user", "assistant"]],
      [0, "truncated", ["user", "assistant"]],
    ]);
    expect(ts[0]?.messages?.[1]?.content).toBe("6 * 7 = 42. The answer is 42.<|eot_id|>");
    expect(ts[0]?.metadata.data_source).toBe("openai/gsm8k");
  });

  it("NeMo-RL val_data_step: the batch of one unwrapped, its message log and reward", () => {
    const ts = readAll("nemo-rl/val_data_step3.jsonl", "nemo-rl-val");
    expect(ts.map((t) => [t.reward, t.messages?.map((m) => m.role)])).toEqual([
      [1, ["user", "assistant"]],
      [0, ["user", "assistant"]],
    ]);
  });

  it("AReaL rollout: segments as messages, version_rle as one version per generated token", () => {
    const ts = readAll("areal/rollout/3/1742.jsonl", "areal");
    expect(ts.map((t) => t.reward)).toEqual([1, 0]);
    expect(ts[0]?.messages?.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(ts[0]?.metadata.output_versions).toEqual([2, 2, 2, 2, 3, 3, 3, 3, 3, 3]);
    expect(ts[1]?.metadata.output_versions).toEqual(new Array(10).fill(3));
    expect(ts[0]?.metadata.head_version).toBe(2);
  });

  it("AReaL rollout as _dump_trajectory writes it at 4aef98d (no version_rle, no segments)", () => {
    const [line] = fixtureLines("dumps/areal/rollout/3/1742.jsonl") as [string];
    const full = JSON.parse(line) as Record<string, unknown>;
    const keys = ["task_id", "sample_idx", "seqlen", "prompt_len", "head_version", "tail_version"];
    const written = Object.fromEntries(
      [...keys, "reward", "prompt", "completion"].map((k) => [k, full[k]]),
    );
    const r = readRolloutLine(JSON.stringify(written), 1, undefined, "1742.jsonl");
    if (r.kind !== "trajectories") throw new Error(JSON.stringify(r));
    expect(r.format).toBe("areal");
    const [t] = r.trajectories;
    expect(t?.messages).toEqual([
      { role: "user", content: full.prompt },
      { role: "assistant", content: full.completion },
    ]);
    expect(t?.reward).toBe(1);
    expect(t?.metadata.output_versions).toBeUndefined();
    expect(t?.metadata).toMatchObject(Object.fromEntries(keys.map((k) => [k, full[k]])));
  });

  it("AReaL version runs that do not add up to the generated tokens give no per-token versions", () => {
    const [line] = fixtureLines("dumps/areal/rollout/3/1742.jsonl") as [string];
    const record = { ...JSON.parse(line), version_rle: [[2, 3]] };
    const r = readRolloutLine(JSON.stringify(record), 1);
    expect(r.kind).toBe("trajectories");
    if (r.kind === "trajectories")
      expect(r.trajectories[0]?.metadata.output_versions).toBeUndefined();
    expect(
      expandVersionRle([
        [1, 2],
        [4, 1],
      ]),
    ).toEqual([1, 1, 4]);
    expect(expandVersionRle([[1, -2]])).toBeUndefined();
    expect(expandVersionRle([[1, 2e9]])).toBeUndefined();
  });

  it("miles trajectory sidecar: messages, status, reward and group", () => {
    const ts = readAll("miles/trajectory/4.jsonl", "miles-trajectory");
    expect(ts.map((t) => [t.reward, t.status, t.group, t.messages?.length])).toEqual([
      [1, "completed", "0", 4],
      [0, "truncated", "0", 4],
    ]);
  });

  it("ART v2 rows: messages from trajectory_json when `messages` is null, its logprobs kept, a sentinel holds none", () => {
    const results = fixtureLines("dumps/art/trajectories.v2.jsonl").map((line, i) =>
      readRolloutLine(line, i + 1),
    );
    const counts = results.map((r) => (r.kind === "trajectories" ? r.trajectories.length : -1));
    expect(counts).toEqual([1, 1, 0]);
    const second = results[1];
    if (second?.kind !== "trajectories") throw new Error("not read");
    const [t] = second.trajectories;
    expect(t?.messages?.map((m) => [m.role, m.content])).toEqual([
      ["user", "What is 15*7?"],
      ["assistant", "105."],
    ]);
    expect(t?.reward).toBe(1);
    const [lp] = (t?.metadata.choice_logprobs ?? []) as { content: { logprob: number }[] }[];
    expect(lp?.content.map((c) => c.logprob)).toEqual([-0.01, -0.4]);
  });

  it("a bad reward is an error naming the field", () => {
    const [line] = fixtureLines("dumps/skyrl/dumped_evals/global_step_10_evals/gsm8k.jsonl") as [
      string,
    ];
    const r = readRolloutLine(JSON.stringify({ ...JSON.parse(line), score: "high" }), 2);
    expect(r.kind === "error" && [r.error.line, r.error.field]).toEqual([2, "score"]);
  });

  it.each(["skyrl-eval", "nemo-rl-val", "areal", "miles-trajectory"] as const)(
    "%s: drift and mismatch say why they cannot check it",
    (format) => {
      expect(idsAbsentReason(format)).toMatch(/decoded text only.*no drift or mismatch check/);
    },
  );
});

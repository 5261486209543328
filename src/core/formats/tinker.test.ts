import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import type { Trajectory } from "../trajectory/types";
import { idsAbsentReason } from "./idsAbsent";
import { readRolloutLine } from "./readRolloutLine";

// Files the Tinker cookbook's own writer code wrote (scripts/fixtures/tinker_fixtures.py):
// capture/sample.jsonl from tinker_cookbook.capture, rollout summaries from TrainingRunStore.

function readFile(file: string): Trajectory[] {
  return fixtureLines(`tinker-run/${file}`).flatMap((line, i) => {
    const r = readRolloutLine(line, i + 1, undefined, file);
    if (r.kind !== "trajectories") throw new Error(JSON.stringify(r));
    return r.trajectories;
  });
}

const tokens = (t: Trajectory | undefined) =>
  t?.segments.reduce((n, s) => n + s.tokenIds.length, 0) ?? 0;

describe("Tinker capture/sample.jsonl", () => {
  const ts = readFile("capture/sample.jsonl");
  const lines = fixtureLines("tinker-run/capture/sample.jsonl").map((l) => JSON.parse(l));

  it("one trajectory per sampled sequence: the call's prompt, then the sampled tokens trained", () => {
    // 16 one-sample turn calls, one call of 4 samples, one failed call.
    expect(ts).toHaveLength(21);
    const [first] = ts;
    expect(first?.format).toBe("tinker-capture");
    expect(first?.segments.map((s) => [s.kind, s.tokenIds.length])).toEqual([
      ["prompt", lines[0].prompt_tokens.length],
      ["model", lines[0].samples[0].tokens.length],
    ]);
    expect(first?.segments[1]?.logprobs).toEqual(lines[0].samples[0].logprobs);
    expect(first?.segments[1]?.lossMask.every((m) => m === 1)).toBe(true);
    expect(first?.segments[0]?.lossMask.every((m) => m === 0)).toBe(true);
    expect(first?.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(first?.samplingParams).toMatchObject({ max_tokens: 256, temperature: 1 });
  });

  it("the step is the capture scope's iteration; ids name the scope and the line", () => {
    expect(ts.map((t) => t.metadata.step)).toEqual(
      lines.flatMap((l) => new Array(Math.max(1, l.samples?.length ?? 0)).fill(l.scope.iteration)),
    );
    expect(ts[0]?.id).toBe("it0.g0.t0.L1");
    expect(ts[1]?.id).toBe("it0.g0.t0.L2");
    expect(ts.filter((t) => t.metadata.step === 2).map((t) => t.id)).toEqual([
      "it2.g0.L17.s0",
      "it2.g0.L17.s1",
      "it2.g0.L17.s2",
      "it2.g0.L17.s3",
      "it2.L18",
    ]);
  });

  it("a call's samples form one group; a length stop is truncated; a failed call is aborted", () => {
    const group = ts.filter((t) => t.group === "call L17");
    expect(group).toHaveLength(4);
    // The same prompt, four different completions.
    expect(new Set(group.map((t) => t.segments[0]?.tokenIds.join())).size).toBe(1);
    expect(new Set(group.map((t) => t.segments[1]?.tokenIds.join())).size).toBe(4);
    expect(tokens(group[0])).toBeGreaterThan(0);
    expect(ts.filter((t) => t.status === "truncated").length).toBe(
      lines.filter((l) => l.samples?.[0]?.stop_reason === "length").length,
    );
    const failed = ts.at(-1);
    expect(failed?.status).toBe("aborted");
    expect(failed?.endReason).toBe("the sampling call failed: RuntimeError('sampler unavailable')");
    expect(failed?.segments.map((s) => s.kind)).toEqual(["prompt"]);
    expect(failed?.metadata.split).toBe("test");
  });

  it("bad records name the field", () => {
    const bad = (record: Record<string, unknown>) => readRolloutLine(JSON.stringify(record), 4);
    const base = { ...lines[0] };
    const noPrompt = { ...base, prompt_tokens: undefined };
    expect(bad(noPrompt)).toMatchObject({
      kind: "error",
      error: { line: 4, field: "prompt_tokens" },
    });
    const short = { ...base, samples: [{ ...base.samples[0], logprobs: [-1] }] };
    expect(bad(short)).toMatchObject({
      kind: "error",
      error: { field: "samples[0].logprobs" },
    });
    const notIds = { ...base, samples: [{ ...base.samples[0], tokens: ["a"] }] };
    expect(bad(notIds)).toMatchObject({ kind: "error", error: { field: "samples[0].tokens[0]" } });
  });
});

describe("Tinker iteration_N/train_rollout_summaries.jsonl", () => {
  it("one trajectory per summary: total reward, group, step; no tokens and drift says why", () => {
    const ts = readFile("iteration_000001/train_rollout_summaries.jsonl");
    expect(ts.map((t) => [t.id, t.group, t.metadata.step])).toEqual([
      ["it1.g0.t0", "it1.g0", 1],
      ["it1.g0.t1", "it1.g0", 1],
      ["it1.g1.t0", "it1.g1", 1],
      ["it1.g1.t1", "it1.g1", 1],
    ]);
    expect(ts.every((t) => t.segments.length === 0 && typeof t.reward === "number")).toBe(true);
    expect(idsAbsentReason("tinker-summary")).toMatch(/capture\/sample\.jsonl/);
    expect(idsAbsentReason("tinker-capture")).toBeUndefined();
  });
});

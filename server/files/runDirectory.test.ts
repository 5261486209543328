import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { expandInputs } from "./expandInputs";
import { listRunDirectory } from "./runDirectory";

// A prime-rl output directory as its FileMonitor writes it (test-support/fixtureWriters/primeRlRun.ts).
const RUN = fixturePath("prime-rl-run");

describe("a prime-rl output directory", () => {
  it("is one run: traces.jsonl four folders down, each with its step, split and subset", () => {
    const { steps, withoutStep } = listRunDirectory(RUN);
    expect(steps.map((s) => ({ ...s, path: relative(RUN, s.path) }))).toEqual([
      { path: "rollouts/step_0/train/all/traces.jsonl", step: 0, split: "train", subset: "all" },
      {
        path: "rollouts/step_0/train/effective/traces.jsonl",
        step: 0,
        split: "train",
        subset: "effective",
      },
      { path: "rollouts/step_1/eval/all/traces.jsonl", step: 1, split: "eval", subset: "all" },
      { path: "rollouts/step_1/train/all/traces.jsonl", step: 1, split: "train", subset: "all" },
      {
        path: "rollouts/step_1/train/effective/traces.jsonl",
        step: 1,
        split: "train",
        subset: "effective",
      },
    ]);
    expect(withoutStep.map((p) => relative(RUN, p))).toEqual(["metrics.jsonl"]);
  });

  it("as a command-line directory gives its rollout files, not its metrics.jsonl", async () => {
    const { files, problems, notes } = await expandInputs([RUN]);
    expect(problems).toEqual([]);
    expect(notes).toEqual([
      expect.stringContaining(
        `left out 1 JSON or YAML file(s) whose name says they hold no rollouts`,
      ),
    ]);
    expect(notes[0]).toContain(join(RUN, "metrics.jsonl"));
    expect(files.map((p) => relative(RUN, p))).toHaveLength(5);
    expect(files.some((p) => p.endsWith("metrics.jsonl"))).toBe(false);
  });
});

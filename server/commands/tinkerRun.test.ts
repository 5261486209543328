import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { main } from "../cli";
import { createFileRegistry, describeFile } from "../files/fileRegistry";
import { describeViewPaths } from "./view";

/*
 * A Tinker cookbook run folder written by the cookbook's own code
 * (scripts/fixtures/tinker_fixtures.py): capture/sample.jsonl (every step, ids and logprobs),
 * iteration_{N:06d}/train_rollout_summaries.jsonl, and files that are not rollouts.
 */

const run = fixturePath("tinker-run");

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("a Tinker run folder", () => {
  it("validate DIR reads the capture with the steps its records name, summaries by folder", async () => {
    const { code, out, err } = await cli(["validate", run]);
    // The files it leaves out are named, as `view DIR` names them; the exit code is not touched.
    expect(err).toMatch(/^validate: note: .*: left out 2 JSON or YAML file\(s\) whose name says/);
    for (const name of ["capture/train_op.jsonl", "metrics.jsonl"]) expect(err).toContain(name);
    expect(out.split("\n")).toEqual([
      `${run}/capture/sample.jsonl (steps 0–2 in its records): tinker-capture, 21 trajectories from 18 valid lines (18 lines, 0 blank, 0 bad)`,
      `${run}/iteration_000000/train_rollout_summaries.jsonl (step 0, train): tinker-summary, 4 trajectories from 4 valid lines (4 lines, 0 blank, 0 bad)`,
      `${run}/iteration_000001/train_rollout_summaries.jsonl (step 1, train): tinker-summary, 4 trajectories from 4 valid lines (4 lines, 0 blank, 0 bad)`,
    ]);
    expect(code).toBe(0);
  });

  it("drift with no flags checks the capture with the model's tokenizer, no drift; summaries unchecked", async () => {
    const { code, out } = await cli(["drift", run, "--json"]);
    const files = JSON.parse(out).files;
    expect(files[0].tokenizer).toMatchObject({ name: "llama3_1" });
    expect(files[0]).toMatchObject({ checked: 21, drifted: 0, unchecked: 0 });
    expect(files[1]).toMatchObject({ checked: 0, unchecked: 4 });
    expect(code).toBe(2);
  });

  it("view DIR: summaries as steps, the capture listed beside them, side files left out", async () => {
    const lines: string[] = [];
    expect(describeViewPaths([run], (t) => lines.push(t))).toBe(3);
    expect(lines[0]).toBe(`run ${run}: 2 step files, steps 0–1 (n / p step through)`);
    expect(lines[1]).toBe(
      `listed beside the run, every step in one file: ${run}/capture/sample.jsonl`,
    );
    expect(lines[2]).toMatch(/left out: .*capture\/train_op\.jsonl, .*metrics\.jsonl$/);
    const registry = createFileRegistry([run], "/nonexistent-data-dir");
    const listed = await Promise.all(registry.list().map(describeFile));
    expect(listed.map((f) => [f.name, f.run?.step])).toEqual([
      ["iteration_000000/train_rollout_summaries.jsonl", 0],
      ["iteration_000001/train_rollout_summaries.jsonl", 1],
      ["tinker-run/capture/sample.jsonl", undefined],
      ["episodes.jsonl", undefined],
    ]);
    expect(listed[2]?.id).toMatch(/^r1-[0-9a-f]{12}$/);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-groups-"));
const atropos = fixturePath("atropos-rubiks-groups.jsonl");

/** A slime Sample line as slime's own dump writes one: full tokens, response-only mask. */
function slimeSample(group: number, prompt: number[], response: number[], reward: number) {
  return JSON.stringify({
    group_index: group,
    index: 0,
    rollout_id: null,
    tokens: [...prompt, ...response],
    response_length: response.length,
    loss_mask: response.map(() => 1),
    rollout_log_probs: response.map(() => -0.5),
    reward,
    status: "completed",
  });
}

// Two groups whose members sit on lines far apart: 0 on lines 1 and 3, 1 on lines 2 and 4; group
// 1's members are token-identical but scored apart (a reward with noise), so no zero variance.
const slime = join(dir, "slime.jsonl");
writeFileSync(
  slime,
  `${[
    slimeSample(0, [1, 2, 3], [7, 8, 9], 1),
    slimeSample(1, [4, 5], [6, 6], 0),
    slimeSample(0, [1, 2, 3], [7, 5], 0),
    slimeSample(1, [4, 5], [6, 6], 1),
  ].join("\n")}\n`,
);

describe("rollout-lens groups", () => {
  it("prints the findings of the real atropos file with one line per cause", async () => {
    const { code, out } = await runCli(["groups", atropos]);
    expect(code).toBe(0);
    expect(out).toContain("atropos, 4 groups: 2 zero-variance, 3 with duplicates");
    expect(out).toContain("zero variance: identical completions");
    expect(out).toContain("duplicates: members {1, 2, 3} are token-identical (3 copies)");
    expect(out).toContain("branch points: 1346 {0}|{1,2,3}; 1347 {1,3}|{2}; 1353 {1}|{3}");
  });

  it("--json prints exactly the documented shape", async () => {
    const { code, out } = await runCli(["groups", atropos, "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(Object.keys(report)).toEqual(["files"]);
    const [file] = report.files;
    expect(Object.keys(file)).toEqual(["path", "format", "groups"]);
    expect(file.format).toBe("atropos");
    const [first, second, third] = file.groups;
    expect(Object.keys(first)).toEqual([
      "id",
      "line",
      "size",
      "with_ids",
      "duplicate_sets",
      "zero_variance",
      "zero_variance_cause",
      "branch_points",
      "multiplicity",
      "advantages",
    ]);
    expect(first.branch_points[0]).toEqual({ index: 1346, children: [[0], [1, 2, 3]] });
    expect(second.duplicate_sets).toEqual([[1, 2, 3]]);
    expect(third).toMatchObject({
      id: "L3",
      line: 3,
      size: 4,
      duplicate_sets: [[0, 1, 2, 3]],
      zero_variance: true,
      zero_variance_cause: "identical",
      branch_points: [],
      multiplicity: { tokens: 4, max: 4 },
      advantages: { recorded: null, computed: [0, 0, 0, 0] },
    });
  });

  it("exits 1 on a --fail-on finding and 0 when the file has none of it", async () => {
    expect((await runCli(["groups", atropos, "--fail-on", "zero-variance"])).code).toBe(1);
    expect((await runCli(["groups", atropos, "--fail-on", "duplicates,multiplicity"])).code).toBe(
      1,
    );
    const clean = await runCli(["groups", slime, "--fail-on", "zero-variance"]);
    expect(clean.out).toContain("slime, 2 groups: 0 zero-variance");
    expect(clean.code).toBe(0);
    expect((await runCli(["groups", slime, "--fail-on", "duplicates"])).code).toBe(1);
  });

  it("checks no token identity on text-only members (ART's YAML): not checked, exit 2 on --fail-on", async () => {
    const art = fixturePath("dumps/art/trajectories/train/0003.yaml");
    const out = await runCli(["groups", art]);
    expect(out.code).toBe(0);
    expect(out.out).toContain("art, 2 groups: 0 zero-variance, 0 with duplicates");
    expect(out.out).toContain(
      "not checked: duplicates, branch points and multiplicity need token ids (2 of 2 members are text only)",
    );
    expect(out.out).toContain("branch points: not checked (no token ids)");
    expect(out.out).not.toContain("token-identical");
    const json = JSON.parse((await runCli(["groups", art, "--json"])).out);
    expect(json.files[0].groups.map((g: { with_ids: number }) => g.with_ids)).toEqual([0, 0]);
    expect((await runCli(["groups", art, "--fail-on", "duplicates"])).code).toBe(2);
    expect((await runCli(["groups", art, "--fail-on", "zero-variance"])).code).toBe(0);
  });

  it("groups text-table rows by their group column: zero variance from the rewards alone", async () => {
    // vf-eval's results as a W&B table: two rollouts per example, example 0 solved by both.
    const table = join(dir, "results.table.json");
    const columns = ["example_id", "prompt", "completion", "reward"];
    const data = [
      [0, "2+2?", "4", 1],
      [0, "2+2?", "four", 1],
      [1, "3+3?", "6", 1],
      [1, "3+3?", "7", 0],
    ];
    writeFileSync(table, JSON.stringify({ columns, data }));
    const out = await runCli(["groups", table]);
    expect(out.code).toBe(0);
    expect(out.out).toContain("text-table, 2 groups: 1 zero-variance");
    const json = JSON.parse((await runCli(["groups", table, "--json"])).out);
    const groups = json.files[0].groups;
    expect(groups.map((g: { id: string }) => g.id)).toEqual(["0", "1"]);
    expect(
      groups.map((g: { zero_variance_cause: string | null }) => g.zero_variance_cause),
    ).toEqual(["equal-reward", null]);
    expect((await runCli(["groups", table, "--fail-on", "zero-variance"])).code).toBe(1);
  });

  it("gathers a group's members from lines far apart", async () => {
    const { out } = await runCli(["groups", slime, "--json"]);
    const [g0, g1] = JSON.parse(out).files[0].groups;
    expect([g0.id, g0.size, g0.branch_points]).toEqual([
      "0",
      2,
      [{ index: 4, children: [[0], [1]] }],
    ]);
    expect([g1.id, g1.duplicate_sets, g1.zero_variance_cause]).toEqual(["1", [[0, 1]], null]);
  });

  it("--shard on one file splits its groups by key, each reported by exactly one shard", async () => {
    const ids = async (shard: string) =>
      JSON.parse(
        (await runCli(["groups", atropos, "--json", "--shard", shard])).out,
      ).files[0].groups.map((g: { id: string }) => g.id);
    const parts = [await ids("0/2"), await ids("1/2")];
    expect(parts.flat().sort()).toEqual(["L1", "L2", "L3", "L4"]);
  });

  it("exits 2 on an unreadable file, a bad line and a bad --fail-on", async () => {
    expect((await runCli(["groups", join(dir, "missing.jsonl")])).code).toBe(2);
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, `${slimeSample(0, [1], [2], 1)}\n{"tokens": 3}\n`);
    const result = await runCli(["groups", bad]);
    expect(result.code).toBe(2);
    expect(result.out).toMatch(/line 2.*not checked/);
    const wrong = await runCli(["groups", atropos, "--fail-on", "bugs"]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain("--fail-on takes duplicates, zero-variance, multiplicity");
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test-support/runCli";

/*
 * SkyRL's dumped_data/global_step_N_training_input.pkl on the command line, unconverted: the
 * pickle SkyRL's dump_data writes (scripts/fixtures/skyrl_fixtures.py), 4 rows in 2 groups.
 */

const pkl = fileURLToPath(
  new URL(
    "../../src/test/fixtures/dumps/skyrl/dumped_data/global_step_1_training_input.pkl",
    import.meta.url,
  ),
);

describe("a SkyRL training batch dump (.pkl) on the command line", () => {
  it("validate reads one trajectory per batch row", async () => {
    const { code, out } = await runCli(["validate", pkl]);
    expect(out).toBe(
      `${pkl} (step 1): skyrl-batch, 4 trajectories from 4 valid records (4 records, 0 bad)`,
    );
    expect(code).toBe(0);
  });

  it("mismatch compares the trainer's action_log_probs with the rollout logprobs", async () => {
    const { code, out } = await runCli(["mismatch", pkl, "--json"]);
    const report = JSON.parse(out);
    const rows = report.files[0].trajectories;
    expect(rows).toHaveLength(4);
    expect(rows[0].lanes).toEqual(["trainer", "sampled"]);
    // trained tokens only: row 2's two tool tokens (loss mask 0) are not compared
    const stats = rows.map((t: { stats: Record<string, number> }) => t.stats);
    expect(stats.map((st: Record<string, number>) => st.compared)).toEqual([16, 6, 14, 6]);
    expect(stats[1].maxAbsDelta).toBeCloseTo(0.5, 6);
    expect(stats[1].maxAt).toBe(15);
    expect(stats[0].maxAbsDelta).toBe(0);
    expect(code).toBe(0);
  });

  it("drift recognises Qwen3 from the ids and finds no drift", async () => {
    const { code, out } = await runCli(["drift", pkl]);
    expect(out).toContain("tokenizer qwen3 (recognised from the first token ids)");
    expect(out).toContain("skyrl-batch, 4 trajectories (4 checked, 0 unchecked), 0 drifted");
    expect(code).toBe(0);
  });

  it("groups reads the prompts from policy_prompt_boundaries", async () => {
    const { code, out } = await runCli(["groups", pkl]);
    expect(out).toContain(`${pkl}: skyrl-batch, 2 groups`);
    expect(out).toContain("recorded: 0.500 -0.500");
    expect(code).toBe(0);
  });

  it("validate of the dumped_data folder reads its .pkl steps", async () => {
    const dir = pkl.slice(0, pkl.lastIndexOf("/"));
    const { code, out } = await runCli(["validate", dir]);
    expect(out).toContain(`${pkl} (step 1): skyrl-batch, 4 trajectories from 4 valid records`);
    expect(code).toBe(0);
  });

  it("a truncated copy is one clear error naming the file, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rollout-lens-skyrl-"));
    const cut = join(dir, "global_step_1_training_input.pkl");
    const bytes = readFileSync(pkl);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 700));
    const { code, out } = await runCli(["validate", cut]);
    expect(out).toMatch(
      new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cannot read: pickle byte \\d+: `),
    );
    expect(code).toBe(2);
  });
});

import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { describeMcpPaths } from "./mcp";

describe("rollout-lens mcp says what each argument contributes", () => {
  it("a directory whose files name no step lists its rollout files; one with none is an error", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-flat-"));
    cpSync(fixturePath("reference-slime.jsonl"), join(dir, "a.jsonl"));
    cpSync(fixturePath("reference-slime.jsonl"), join(dir, "metrics.jsonl"));
    const said: string[] = [];
    expect(describeMcpPaths([dir], (t) => said.push(t))).toBeUndefined();
    expect(said).toEqual([
      `rollout-lens mcp: ${dir}: no file names a step, so it is no training run: its 1 rollout file(s) are listed one by one`,
      `rollout-lens mcp: note: 1 file(s) are side files or configs and are left out: ${join(dir, "metrics.jsonl")}`,
    ]);
    const empty = mkdtempSync(join(tmpdir(), "mcp-empty-"));
    const problem = describeMcpPaths([empty], () => {});
    expect(problem?.startsWith(`rollout-lens mcp: ${empty}: no rollout files (`)).toBe(true);
    // The command exits 2 with it on stderr, stdout (the protocol's) left empty.
    const bin = new URL("../../bin/rollout-lens.mjs", import.meta.url).pathname;
    const run = spawnSync(process.execPath, [bin, "mcp", empty], { encoding: "utf8", input: "" });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`${empty}: no rollout files (`);
  });

  it("a run directory: its steps and the files left out, on the error stream", () => {
    const run = fixturePath("tinker-run");
    const said: string[] = [];
    expect(describeMcpPaths([run, "not-yet.jsonl"], (t) => said.push(t))).toBeUndefined();
    expect(said[0]).toBe(
      `rollout-lens mcp: run ${run}: 2 step files, steps 0–1 (n / p step through)`,
    );
    expect(said.some((t) => /left out: .*metrics\.jsonl/.test(t))).toBe(true);
    expect(said.at(-1)).toBe(
      "rollout-lens mcp: note: not-yet.jsonl does not exist yet; it is tailed once it appears",
    );
  });

  it("plain files need no words", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-file-"));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "a.jsonl");
    cpSync(fixturePath("reference-slime.jsonl"), file);
    const said: string[] = [];
    expect(describeMcpPaths([file], (t) => said.push(t))).toBeUndefined();
    expect(said).toEqual([]);
  });
});

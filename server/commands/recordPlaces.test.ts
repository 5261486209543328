import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test-support/runCli";

/*
 * A table's records are named as records by every scanning command, as `validate` names them: a
 * CSV row's quoted cell may span lines, so "line 3" would point at the wrong place of its text.
 */

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-record-places-"));
function tempFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// Record 1 starts on line 2 and spans to line 3; record 2 (line 4) has a reward that is no number.
const csv = tempFile(
  "scores.csv",
  'prompt,completion,reward,uid\n"a\nb",c,1,g1\nd,e,high,g1\nf,g,0,g1\n',
);
const BAD = "record 2 [reward]: expected a number, a list of numbers, rewards by name, or null";
// The same rows as JSON lines: their places stay lines.
const jsonl = tempFile(
  "scores.jsonl",
  ['{"prompt":"a","completion":"c","reward":1,"uid":"g1"}', "{", ""].join("\n"),
);

describe("a table's places in the scanning commands", () => {
  it("drift names its unchecked and bad records as records", async () => {
    const { code, out } = await runCli(["drift", csv]);
    expect(code).toBe(2);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/: 2 unchecked \(record 1, 3\): this file holds decoded text only/);
    expect(lines).toContain(`${csv}: ${BAD}`);
    expect(lines.at(-1)).toMatch(/, 1 bad records$/);
    const json = JSON.parse((await runCli(["drift", csv, "--json"])).out);
    expect(json.files[0]).toMatchObject({ unit: "record", valid_lines: 2, bad_lines: 1 });
  });

  it("mismatch names its skipped and bad records as records", async () => {
    const { code, out } = await runCli(["mismatch", csv]);
    expect(code).toBe(2);
    const lines = out.split("\n");
    expect(lines).toContain(
      "  2 skipped (L1 record 1, L3 record 3): no logprobs at all: a text-only row (no token ids)",
    );
    expect(lines).toContain(`  ${BAD}`);
    const json = JSON.parse((await runCli(["mismatch", csv, "--json"])).out);
    expect(json.files[0]).toMatchObject({ unit: "record", errors: [{ line: 2 }] });
  });

  it("mismatch groups its skipped rows by reason, naming the first eight", async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `p${i},c,1`);
    const ten = tempFile("ten.csv", `prompt,completion,reward\n${rows.join("\n")}\n`);
    const { out } = await runCli(["mismatch", ten]);
    const named = Array.from({ length: 8 }, (_, i) => `L${i + 1} record ${i + 1}`).join(", ");
    expect(out.split("\n")).toContain(
      `  10 skipped (${named} and 2 more): no logprobs at all: a text-only row (no token ids)`,
    );
    const json = JSON.parse((await runCli(["mismatch", ten, "--json"])).out);
    expect(json.files[0].skipped).toHaveLength(10);
  });

  it("groups names a group's first record and the bad ones as records", async () => {
    const { code, out } = await runCli(["groups", csv]);
    expect(code).toBe(2);
    const lines = out.split("\n");
    expect(lines).toContain(`  ${BAD} (not checked)`);
    expect(lines).toContain("  g1 (record 1, 2 members, group)");
    const json = JSON.parse((await runCli(["groups", csv, "--json"])).out);
    expect(json.files[0]).toMatchObject({ unit: "record", groups: [{ id: "g1", line: 1 }] });
  });

  it("merge-reports keeps a record file's unit and words", async () => {
    const report = tempFile("mismatch.json", (await runCli(["mismatch", csv, "--json"])).out);
    const merged = await runCli(["merge-reports", report]);
    expect(merged.out).toMatch(/, 1 bad records$/);
    const json = JSON.parse((await runCli(["merge-reports", report, "--json"])).out);
    expect(json.files[0].unit).toBe("record");
  });

  it("validate and drift count the bad records they do not list as records", async () => {
    const rows = Array.from({ length: 1003 }, (_, i) => `p${i},c,high`);
    const many = tempFile("many.csv", `prompt,completion,reward\n${rows.join("\n")}\n`);
    const validate = await runCli(["validate", many]);
    expect(validate.out.split("\n").at(-1)).toBe("  3 more bad records not listed");
    const drift = await runCli(["drift", many]);
    expect(drift.out).toContain(`${many}: 3 more bad records not listed`);
  });

  it("branch --line names a table's record as a record", async () => {
    const out = join(dir, "branched.jsonl");
    const bad = await runCli(["branch", csv, "--line", "2", "--index", "1", "--out", out]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${csv} record 2: field reward: expected a number`);
    const past = await runCli(["branch", csv, "--line", "9", "--index", "1", "--out", out]);
    expect(past.err).toContain(`${csv} has no row 0 on record 9`);
  });

  it("JSON lines keep their lines", async () => {
    const drift = await runCli(["drift", jsonl]);
    expect(drift.out).toMatch(/: line 2: invalid JSON/);
    const mismatch = JSON.parse((await runCli(["mismatch", jsonl, "--json"])).out);
    expect(mismatch.files[0].unit).toBeUndefined();
    const groups = await runCli(["groups", jsonl]);
    expect(groups.out).toMatch(/ {2}line 2: invalid JSON/);
    const branch = await runCli(["branch", jsonl, "--line", "2", "--index", "1", "--out", "x"]);
    expect(branch.err).toContain(`${jsonl} line 2: invalid JSON`);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test-support/runCli";

/*
 * One key for a file that could not be read, in every command's --json and in merge-reports:
 * `read_error` (validate and drift wrote it, mismatch and groups wrote `readError`, so a script
 * checking one key missed the others' unreadable files).
 */

const dir = mkdtempSync(join(tmpdir(), "read-error-key-"));
// One JSON document under a JSON-lines name: refused whole, nothing in it read.
const broken = join(dir, "document.jsonl");
writeFileSync(broken, '[\n  {"tokens": [1, 2]}\n]\n');

type FileJson = Record<string, unknown>;

async function fileOf(args: string[]): Promise<FileJson> {
  const run = await runCli(args);
  expect(run.code).toBe(2);
  return (JSON.parse(run.out) as { files: FileJson[] }).files[0] as FileJson;
}

describe("an unreadable file in --json", () => {
  it.each([["validate"], ["drift"], ["mismatch"], ["groups"]])(
    "%s names it read_error",
    async (command) => {
      const file = await fileOf([command, broken, "--json"]);
      expect(file.read_error).toMatch(/one JSON document/);
      expect(file.readError).toBeUndefined();
    },
  );

  it.each([["drift"], ["mismatch"], ["groups"]])(
    "merge-reports of %s keeps read_error, and reads an earlier report's readError",
    async (command) => {
      const report = join(dir, `${command}.json`);
      const run = await runCli([command, broken, "--json", "--shard", "0/1"]);
      writeFileSync(report, run.out);
      const merged = await fileOf(["merge-reports", report, "--json"]);
      expect(merged.read_error).toMatch(/one JSON document/);
      if (command === "drift") return;
      // A report written before the rename.
      const old = join(dir, `${command}-old.json`);
      writeFileSync(old, run.out.replace('"read_error"', '"readError"'));
      expect((await fileOf(["merge-reports", old, "--json"])).read_error).toMatch(
        /one JSON document/,
      );
    },
  );
});

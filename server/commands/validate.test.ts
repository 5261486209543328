import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { fixtureLines, fixturePath } from "../../src/test/fixtureFiles";
import { runCommand } from "../../test-support/runCli";
import { validateCommand } from "./validate";

const run = (args: string[]) => runCommand(validateCommand, args);

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-validate-"));
function tempFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const mixed = fixturePath("validate-mixed.jsonl");

describe("validate", () => {
  it("reports exactly the broken lines of a mixed file and counts the good ones", async () => {
    const { code, out } = await run([mixed]);
    expect(code).toBe(1);
    expect(out.split("\n")).toEqual([
      `${mixed}: slime, 3 trajectories from 3 valid lines (6 lines, 1 blank, 2 bad)`,
      expect.stringMatching(/^ {2}line 3: invalid JSON: /),
      "  line 5 [loss_mask]: loss_mask has 19 entries but response_length has 20",
    ]);
  });

  it("counts a table's records as records and names a bad one by its row, not a line of text", async () => {
    // Row 2 of this CSV starts on line 4 of its text: an error saying "line 3" would point there.
    const csv = tempFile("scores.csv", 'prompt,completion,reward\n"a\nb",c,1\nd,e,high\n');
    const { code, out } = await run([csv]);
    expect(code).toBe(1);
    expect(out.split("\n")).toEqual([
      `${csv}: text-table, 1 trajectories from 1 valid records (2 records, 1 bad)`,
      "  record 2 [reward]: expected a number, a list of numbers, rewards by name, or null",
    ]);
    const json = JSON.parse((await run([csv, "--json"])).out);
    expect(json.files[0]).toMatchObject({ unit: "record", lines: 2, bad: 1 });
    const jsonl = JSON.parse((await run([mixed, "--json"])).out);
    expect(jsonl.files[0].unit).toBeUndefined();
  });

  it("prints the same as one JSON object with --json", async () => {
    const { code, out } = await run([mixed, "--json"]);
    expect(code).toBe(1);
    const report = JSON.parse(out);
    expect(report).toEqual({
      files: [
        {
          path: mixed,
          format: "slime",
          lines: 6,
          blank: 1,
          valid: 3,
          trajectories: 3,
          bad: 2,
          errors: [
            { line: 3, message: expect.stringMatching(/^invalid JSON/) },
            { line: 5, field: "loss_mask", message: expect.any(String) },
          ],
        },
      ],
    });
  });

  const cases: {
    name: string;
    files: () => string[];
    flags?: string[];
    code: number;
    out: RegExp;
  }[] = [
    {
      name: "all lines valid, CRLF endings and a trailing blank line",
      files: () => [
        tempFile("ok.jsonl", `${fixtureLines("reference-strands.jsonl").join("")}\r\n\r\n`),
      ],
      code: 0,
      out: /strands, 1 trajectories from 1 valid lines \(2 lines, 1 blank, 0 bad\)/,
    },
    {
      name: "an unreadable file",
      files: () => [join(dir, "missing.jsonl")],
      code: 2,
      out: /missing\.jsonl: cannot read: ENOENT/,
    },
    {
      name: "nothing valid",
      files: () => [tempFile("bad.jsonl", '{"a":\n[1]\n')],
      code: 2,
      out: /no readable records, 0 trajectories from 0 valid lines \(2 lines, 0 blank, 2 bad\)/,
    },
    {
      name: "an empty file",
      files: () => [tempFile("empty.jsonl", "")],
      code: 2,
      out: /0 lines, 0 blank, 0 bad/,
    },
    {
      name: "a forced format that does not match",
      files: () => [fixturePath("reference-slime.jsonl")],
      flags: ["--format", "atropos"],
      code: 2,
      out: /line 1: expected an atropos record but the keys look like slime/,
    },
    {
      name: "several files: the worst exit code wins",
      files: () => [fixturePath("reference-verl.jsonl"), mixed],
      code: 1,
      out: /verl, 1 trajectories[\s\S]*slime, 3 trajectories/,
    },
  ];
  it.each(cases)("$name", async ({ files, flags = [], code, out }) => {
    const result = await run([...files(), ...flags]);
    expect(result.out).toMatch(out);
    expect(result.code).toBe(code);
  });

  it("rejects an unknown --format and a missing FILE", async () => {
    expect(await run([mixed, "--format", "toString"])).toMatchObject({
      code: 2,
      err: /--format must be one of/,
    });
    expect(await run([])).toMatchObject({ code: 2, err: /at least one FILE/ });
  });

  it("runs as `node bin/rollout-lens.mjs validate`", async () => {
    const bin = join(import.meta.dirname, "../../bin/rollout-lens.mjs");
    const result = await promisify(execFile)(process.execPath, [
      bin,
      "validate",
      "--json",
      mixed,
    ]).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).files[0]).toMatchObject({
      valid: 3,
      trajectories: 3,
      blank: 1,
    });
    expect(JSON.parse(result.stdout).files[0].errors.map((e: { line: number }) => e.line)).toEqual([
      3, 5,
    ]);
  });
});

describe("validate on directories, globs and shards", () => {
  it("N shards of one file read every line once; a directory's files split by path over shards", async () => {
    const { mkdtempSync, writeFileSync, mkdirSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { fixtureLines } = await import("../../src/test/fixtureFiles");
    const root = mkdtempSync(join(tmpdir(), "validate-shards-"));
    mkdirSync(join(root, "d"));
    const slime = fixtureLines("reference-slime.jsonl")[0] ?? "";
    const lines = Array.from({ length: 15 }, (_, k) => (k === 4 ? "{bad" : k === 8 ? "" : slime));
    const file = join(root, "d", "many.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    writeFileSync(join(root, "d", "one.jsonl"), `${slime}\n`);
    const json = async (args: string[]) => {
      const out: string[] = [];
      const code = await validateCommand([...args, "--json"], {
        out: (t) => out.push(t),
        err: () => {},
      });
      return { code, report: JSON.parse(out.join("")) as { files: Record<string, unknown>[] } };
    };
    const whole = (await json([file])).report.files[0];
    for (const count of [2, 4, 7]) {
      let valid = 0;
      let read = 0;
      const bad: unknown[] = [];
      for (let index = 0; index < count; index++) {
        const { code, report } = await json([file, "--shard", `${index}/${count}`]);
        const part = report.files[0] as {
          valid: number;
          lines: number;
          errors: { line: number }[];
        };
        expect(code).toBe(part.errors.length > 0 ? 1 : 0);
        valid += part.valid;
        read += part.lines;
        bad.push(...part.errors);
      }
      expect({ valid, read, bad }).toEqual({ valid: whole?.valid, read: 15, bad: whole?.errors });
    }
    const all = (await json([join(root, "d")])).report.files.map((f) => f.path);
    expect(all).toEqual([file, join(root, "d", "one.jsonl")]);
    const split = [];
    for (let index = 0; index < 3; index++) {
      split.push(
        ...(await json([join(root, "d"), "--shard", `${index}/3`])).report.files.map((f) => f.path),
      );
    }
    expect(split.sort()).toEqual(all);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import {
  artParquet,
  primeRolloutParquet,
  primeSamplesParquet,
} from "../../src/test/parquetFixtures";
import { validateFile } from "../commands/validate";
import { readLines } from "./readLines";

const dir = mkdtempSync(join(tmpdir(), "rl-parquet-"));
function file(name: string, bytes: ArrayBuffer): string {
  const path = join(dir, name);
  writeFileSync(path, new Uint8Array(bytes));
  return path;
}

describe("readLines on Parquet files", () => {
  it("yields one JSON line per row, numbered like lines", async () => {
    const lines = [];
    for await (const line of readLines(file("rollouts.parquet", primeRolloutParquet(2))))
      lines.push(line);
    expect(lines.map((l) => l.lineNo)).toEqual([1, 2, 3]);
    expect(JSON.parse(lines[0]?.text ?? "{}")).toMatchObject({ response_length: 4, reward: 1 });
  });

  it("reads a ZSTD-compressed file (polars' and ART's codec) in Node", async () => {
    const lines = [];
    for await (const line of readLines(file("zstd.parquet", primeRolloutParquet(2, "ZSTD"))))
      lines.push(JSON.parse(line.text));
    expect(lines.map((l) => l.seed)).toEqual([42, 43, 44]);
    expect(lines[1]).toMatchObject({
      response_length: 4,
      rollout_log_probs: [-0.5, -0.25, -0.125, -0.0625],
    });
  });

  it.each([
    ["prime-rl rollouts", "rollouts.parquet", primeRolloutParquet, "prime-rl-rollouts", 3],
    ["prime-rl samples", "samples.parquet", primeSamplesParquet, "prime", 2],
    ["ART trajectories", "art.parquet", artParquet, "art", 2],
  ] as const)("validate reads %s", async (_name, name, build, format, count) => {
    const report = await validateFile(file(name, build()));
    expect(report).toMatchObject({ format, valid: count, trajectories: count, errors: [] });
  });

  it("is not split by byte range (a shard takes whole Parquet files)", async () => {
    const path = file("ranged.parquet", primeRolloutParquet());
    const lines = readLines(path, { start: 0, end: 10 });
    await expect(lines.next()).rejects.toThrow(/not split by byte range/);
  });

  it("a damaged Parquet file is a read error naming the problem, not a crash", async () => {
    const bytes = new Uint8Array(primeRolloutParquet()).slice(0, 200);
    const report = await validateFile(file("cut.parquet", bytes.buffer));
    expect(report.readError).toMatch(/parquet/i);
  });
});

describe("readLines on a JSON document", () => {
  it("validate reads a pretty-printed ATIF trajectory.json as one record", async () => {
    const doc = JSON.parse(fixtureLines("reference-atif.jsonl")[2] ?? "{}");
    const path = join(dir, "trajectory.json");
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const report = await validateFile(path);
    expect(report).toMatchObject({ format: "atif", valid: 1, trajectories: 3, errors: [] });
  });

  it("a JSONL file named .json is still read line by line", async () => {
    const path = join(dir, "lines.json");
    writeFileSync(path, `${fixtureLines("reference-atif.jsonl").join("\n")}\n`);
    const report = await validateFile(path);
    expect(report).toMatchObject({ format: "atif", valid: 4, lines: 4 });
  });

  // A JSON document under a JSON-lines name was every line of it reported bad, each "cut short".
  const records = fixtureLines("reference-slime.jsonl").map((l) => JSON.parse(l) as unknown);
  const documents = [
    { what: "an indented array", text: JSON.stringify([...records, ...records], null, 2) },
    { what: "an indented object", text: JSON.stringify(records[0], null, 2) },
  ];
  it.each(documents)(
    "$what named .jsonl: one error naming the cause, no bad lines",
    async ({ text }) => {
      const path = join(dir, "dump.jsonl");
      writeFileSync(path, text);
      const report = await validateFile(path);
      expect(report.readError).toMatch(/one JSON document, not JSON lines .*name it \.json/);
      expect(report.errors).toEqual([]);
      // Named .json, the same text reads whole.
      const asJson = join(dir, "dump.json");
      writeFileSync(asJson, text);
      const read = await validateFile(asJson);
      expect(read).toMatchObject({ format: "slime", bad: 0 });
      expect(read.valid).toBeGreaterThan(0);
    },
  );

  it("a one-line array named .jsonl is one bad line saying what it may be", async () => {
    const path = join(dir, "one-line.jsonl");
    writeFileSync(
      path,
      `${JSON.stringify(records)}\n${fixtureLines("reference-slime.jsonl")[0]}\n`,
    );
    const report = await validateFile(path);
    expect(report).toMatchObject({ format: "slime", valid: 1, bad: 1 });
    expect(report.errors[0]?.message).toMatch(
      /not an array \(of 1\): a JSON document on one line\?/,
    );
  });

  it("JSON lines with a space after the brace still read line by line", async () => {
    const path = join(dir, "spaced.jsonl");
    writeFileSync(
      path,
      `${fixtureLines("reference-slime.jsonl")
        .map((l) => `{ ${l.slice(1)}`)
        .join("\n")}\n`,
    );
    expect(await validateFile(path)).toMatchObject({ format: "slime", valid: 1, bad: 0 });
  });
});

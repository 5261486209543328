import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SampleRow, sampleTable } from "../../src/core/bisect/sample";
import { checkSampleBundle } from "../../src/core/bisect/sampleBundle";
import type { BisectRow } from "../../src/core/bisect/table";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";
import { type RunningSim, startSim } from "../sim/start";

let sim: RunningSim;
const dir = mkdtempSync(join(tmpdir(), "rollout-lens-bisect-sample-"));
const file = join(dir, "rows.jsonl");

beforeAll(async () => {
  sim = await startSim({ port: 0 });
  const line = (fixtureLines("reference-rollout-lens.jsonl")[0] ?? "").replace(
    '"temperature":1,',
    '"temperature":0.7,"top_p":0.9,',
  );
  const record = JSON.parse(line);
  const noLogprobs = { ...record, id: "plain", logprobs: record.logprobs.map(() => null) };
  // A second reply differs in its last tokens, so rows pool different values.
  const other = { ...record, id: "other", token_ids: [...record.token_ids] };
  other.token_ids[30] = 17;
  other.token_ids[31] = 18;
  const rows = [record, noLogprobs, other, { ...record, id: "third" }];
  const lines = rows.map((r) => JSON.stringify(r));
  // Line 4 is bad: not a row (rows stay 0-3), said on stderr.
  lines.splice(3, 0, "{not json");
  writeFileSync(file, `${lines.join("\n")}\n`);
}, 120_000);
afterAll(async () => {
  await sim.close();
});

interface SampleJson {
  sample: { rows: number[]; skipped: { row: number; reason: string }[]; n: number; seed: number };
  rows: SampleRow[];
  perRow: { row: number; line: number; trajectory_id: string; rows: BisectRow[] }[];
  reproduces?: boolean;
  differences?: string[];
}

describe("rollout-lens bisect --sample", () => {
  const bundlePath = join(dir, "sample.json");
  let first: SampleJson;

  it("picks N eligible rows by seed, pools every knob over them and writes one bundle", async () => {
    const args = ["bisect", file, "--sample", "2", "--seed", "3", "--sglang", sim.url, "--json"];
    const { code, out, err } = await runCli([...args, "--bundle-out", bundlePath]);
    expect(err).toMatch(/line 4: skipped: /);
    expect(code).toBe(0);
    first = JSON.parse(out);
    expect(first.sample.rows).toHaveLength(2);
    for (const r of first.sample.rows) expect([0, 2, 3]).toContain(r);
    expect(first.sample.skipped).toEqual([
      { row: 1, reason: "no sampled logprob on a trained token" },
    ]);
    expect(first.perRow.map((r) => r.row)).toEqual(first.sample.rows);
    // Each row's table is what `--row R` gives on its own.
    for (const r of first.perRow) {
      const one = await runCli([
        "bisect",
        file,
        "--row",
        String(r.row),
        "--sglang",
        sim.url,
        "--json",
      ]);
      expect(one.code).toBe(0);
      const alone: BisectRow[] = JSON.parse(one.out).rows;
      expect(r.rows.map((x) => x.status === "ran" && x.stats)).toEqual(
        alone.map((x) => x.status === "ran" && x.stats),
      );
    }
    expect(first.rows).toEqual(
      sampleTable(first.perRow.map((r) => ({ row: r.row, table: r.rows }))),
    );
    expect(first.rows.map((r) => [r.knob, r.status])).toEqual([
      ["reference", "ran"],
      ["temperature", "ran"],
      ["top_p", "ran"],
      ["batch", "ran"],
      ["decode", "ran"],
    ]);
    const temperature = first.rows.find((r) => r.knob === "temperature");
    if (temperature?.status !== "ran") throw new Error("temperature did not pool");
    const per = first.perRow.map((r) => r.rows.find((x) => x.knob === "temperature"));
    const compared = per.reduce((s, x) => s + (x?.status === "ran" ? x.stats.compared : 0), 0);
    expect(temperature.compared).toBe(compared);
    expect(temperature.rows).toBe(2);
    const parsed = checkSampleBundle(JSON.parse(readFileSync(bundlePath, "utf8")), bundlePath);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.bundle.bundles.map((b) => b.source.row)).toEqual(first.sample.rows);
  });

  it("the same seed picks the same rows; the text names them and the skipped row", async () => {
    const { code, out } = await runCli([
      "bisect",
      file,
      "--sample",
      "2",
      "--seed",
      "3",
      "--sglang",
      sim.url,
    ]);
    expect(code).toBe(0);
    expect(out).toContain(`rows ${first.sample.rows.join(", ")}`);
    expect(out).toContain("row 1 skipped: no sampled logprob on a trained token");
    expect(out).toMatch(/^temperature +2 /m);
  });

  it("--bundle reruns every row and reproduces the pooled table", async () => {
    const { code, out, err } = await runCli([
      "bisect",
      "--bundle",
      bundlePath,
      "--sglang",
      sim.url,
      "--json",
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const again: SampleJson = JSON.parse(out);
    expect(again).toMatchObject({ reproduces: true, differences: [] });
    expect(again.rows).toEqual(first.rows);
  });

  it.each([
    [["--row", "0"], /^bisect: give --row or --sample, not both$/],
    [["--seed", "2"], /^bisect: --seed: only with --sample N$/],
    [["--sample", "0"], /^bisect: --sample: expected a whole number 1-10000, got "0"$/],
  ])("refuses %j (exit 2)", async (extra, message) => {
    const args = ["bisect", file, "--sglang", sim.url, ...extra];
    if (!extra.includes("--sample") && extra[0] === "--row") args.push("--sample", "2");
    const { code, err } = await runCli(args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it("says which file cannot be read, and when no row can be drawn (exit 2)", async () => {
    const missing = join(dir, "missing.jsonl");
    const gone = await runCli(["bisect", missing, "--sample", "2", "--sglang", sim.url]);
    expect(gone.code).toBe(2);
    expect(gone.err).toMatch(new RegExp(`^bisect: ${missing} cannot be read: ENOENT`));
    const none = join(dir, "none.jsonl");
    writeFileSync(none, "{not json\n");
    const empty = await runCli(["bisect", none, "--sample", "2", "--sglang", sim.url]);
    expect(empty.code).toBe(2);
    expect(empty.err).toContain("no row to bisect among 0: it has no rows");
    expect(empty.err).toContain("1 bad line(s) are not rows");
  });

  it("says a text-only table's rows hold no ids to rescore, and names its bad records as records", async () => {
    // Record 1's prompt spans two lines of the CSV's text; record 2's reward is no number.
    const csv = join(dir, "scores.csv");
    writeFileSync(csv, 'prompt,completion,reward\n"a\nb",c,1\nd,e,high\nf,g,0\n');
    const sample = await runCli(["bisect", csv, "--sample", "2", "--sglang", sim.url]);
    expect(sample.code).toBe(2);
    expect(sample.err).toContain(
      "no row to bisect among 2: 2 rows: no token ids to rescore: this file holds decoded text only",
    );
    expect(sample.err).toContain("1 bad record(s) are not rows");
    const one = await runCli(["bisect", csv, "--row", "1", "--sglang", sim.url]);
    expect(one.code).toBe(2);
    expect(one.err).toContain(
      `${csv} row 1: no token ids to rescore: this file holds decoded text only`,
    );
  });
});

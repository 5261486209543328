import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";

/*
 * slime/miles `.pt` dumps on the command line, unconverted: files written by real torch.save
 * (scripts/fixtures/torch_fixtures.py), 36 Llama-3 calculator episodes.
 */

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../src/test/fixtures/torch/${name}`, import.meta.url));

describe("slime rollout dumps (.pt) on the command line", () => {
  const rollout = fixture("slime-rollout.pt");

  it("validate reads every sample of the dump", async () => {
    const { code, out } = await runCli(["validate", rollout]);
    expect(out).toBe(
      `${rollout}: slime, 36 trajectories from 36 valid records (36 records, 0 bad)`,
    );
    expect(code).toBe(0);
  });

  it("drift with no flags picks llama3 from the ids and finds no drift", async () => {
    const { code, out } = await runCli(["drift", rollout, "--json"]);
    const report = JSON.parse(out);
    expect(report.files[0].tokenizer).toMatchObject({ name: "llama3", reason: "ids" });
    expect(report.files[0]).toMatchObject({ checked: 36, drifted: 0, unchecked: 0 });
    expect(code).toBe(0);
  });

  it("mismatch compares the teacher lane against the sampled logprobs", async () => {
    const { code, out } = await runCli(["mismatch", rollout, "--json"]);
    const report = JSON.parse(out);
    expect(report.files[0].trajectories).toHaveLength(36);
    expect(report.files[0].trajectories[0].lanes).toEqual(["teacher", "sampled"]);
    expect(code).toBe(0);
  });

  it("a torch.save file without samples says what it holds, exit 2", async () => {
    const { code, out } = await runCli(["validate", fixture("values.pt")]);
    expect(out).toContain("a torch.save file with no rollout samples: keys int64, int32");
    expect(code).toBe(2);
  });
});

describe("a file that is not what it seems gets a word, not a JSON error", () => {
  const dir = mkdtempSync(join(tmpdir(), "rollout-lens-sniff-"));

  it("a gzip-compressed JSONL file: decompress it first, exit 2", async () => {
    const path = join(dir, "rollouts.jsonl.gz");
    writeFileSync(path, gzipSync('{"tokens": [1, 2], "response_length": 1}\n'));
    const { code, out } = await runCli(["validate", path]);
    expect(out).toBe(
      `${path}: cannot read: a gzip-compressed file: decompress it first (gunzip -k FILE), then open the result`,
    );
    expect(code).toBe(2);
  });

  it("a CSV file is read as a table (TRL's, by pandas' to_csv); a ragged one names its row, exit 2", async () => {
    const csv = fixturePath("dumps/csv/completions_step10.csv");
    const read = await runCli(["validate", csv]);
    expect(read.out).toBe(
      `${csv} (step 10): text-table, 4 trajectories from 4 valid records (4 records, 0 bad)`,
    );
    expect(read.code).toBe(0);
    const path = join(dir, "ragged.csv");
    writeFileSync(path, "prompt,completion,reward\na,b,1\nc,d\n");
    for (const command of ["validate", "groups"]) {
      const { code, out, err } = await runCli([command, path]);
      expect(`${out}${err}`).toContain(
        `${path}: cannot read: the CSV table does not read: row 2 (after the header): Too few fields`,
      );
      expect(code).toBe(2);
    }
  });

  it("a ZIP that torch did not write is not a torch.save file, exit 2", async () => {
    const path = join(dir, "other.pt");
    writeFileSync(
      path,
      Buffer.from("PK\x03\x04 not really a zip at all, just its magic", "latin1"),
    );
    const { code, out } = await runCli(["drift", path]);
    expect(out).toContain("no ZIP end-of-central-directory record");
    expect(code).toBe(2);
  });
});

describe("a --dump-details folder (rollout_data/ + train_data/) opens as one run", () => {
  const details = fixture("dump-details");

  it("validate and drift read its rollout dump, not the train dump beside it", async () => {
    const validate = await runCli(["validate", details]);
    expect(validate.out).toBe(
      `${details}/rollout_data/3.pt (step 3): slime, 12 trajectories from 12 valid records (12 records, 0 bad)`,
    );
    expect(validate.code).toBe(0);
    const drift = await runCli(["drift", details, "--json"]);
    expect(JSON.parse(drift.out).files[0]).toMatchObject({ checked: 12, drifted: 0 });
    expect(drift.code).toBe(0);
  });

  it("mismatch compares the train dump's trainer lane, joined by rollout_position, with no flag", async () => {
    const { code, out } = await runCli(["mismatch", details, "--json"]);
    const file = JSON.parse(out).files[0];
    expect(file.trajectories).toHaveLength(12);
    expect(
      file.trajectories.every((t: { lanes: string[] }) => t.lanes.join() === "trainer,sampled"),
    ).toBe(true);
    // The fixture's trainer logprobs are the rollout's plus noise of sd 0.01.
    expect(file.summary.maxAbsDelta).toBeLessThan(0.1);
    expect(file.summary.maxAbsDelta).toBeGreaterThan(0);
    expect(code).toBe(0);
  });
});

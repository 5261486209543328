import { closeSync, mkdtempSync, openSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { validateFile } from "../commands/validate";
import { MAX_LINE_BYTES, readLines } from "./readLines";

/*
 * The reader's bounds (docs/format.md "Bounded reading"): a line over the cap skipped with an error
 * naming it, not the whole file dropped; bad lines kept in bounded memory; a JSON document over its
 * cap refused with the cap named; a byte order mark accepted.
 */

const dir = mkdtempSync(join(tmpdir(), "readlines-bounds-"));
const slime = fixtureLines("reference-slime.jsonl")[0] ?? "";

describe("bounded reading", () => {
  it("accepts a UTF-8 byte order mark before the first line", async () => {
    const path = join(dir, "bom.jsonl");
    writeFileSync(path, `\uFEFF${slime}\n${slime}\n`);
    const report = await validateFile(path);
    expect(report.errors).toEqual([]);
    expect(report.valid).toBe(2);
    const doc = join(dir, "bom.json");
    writeFileSync(doc, `\uFEFF[${slime}]`);
    expect((await validateFile(doc)).valid).toBe(1);
  });

  it("skips a line over the line cap with an error naming it, and reads the lines after it", async () => {
    const path = join(dir, "huge-line.jsonl");
    const fd = openSync(path, "w");
    const block = Buffer.alloc(16 * 1024 * 1024, 0x61);
    // Over V8's longest string (2^29 - 24 characters), which once dropped the whole file.
    const blocks = 33;
    writeSync(fd, `${slime}\n{"junk":"`);
    for (let k = 0; k < blocks; k++) writeSync(fd, block);
    writeSync(fd, `"}\n${slime}\n`);
    closeSync(fd);
    const report = await validateFile(path);
    expect(report.readError).toBeUndefined();
    expect(report.valid).toBe(2);
    const bytes = 9 + blocks * block.length + 2;
    expect(report.errors).toEqual([
      {
        line: 2,
        message: `line of ${bytes} bytes, over the ${MAX_LINE_BYTES / 2 ** 20} MiB line cap: skipped`,
      },
    ]);
  }, 60_000);

  it("lists the first 1000 bad lines and counts them all", async () => {
    const path = join(dir, "bad.jsonl");
    writeFileSync(path, `${slime}\n${"not json\n".repeat(5000)}`);
    const report = await validateFile(path);
    expect(report.bad).toBe(5000);
    expect(report.errors).toHaveLength(1000);
    expect(report.errors.at(-1)?.line).toBe(1001);
  });

  it("refuses a JSON document over its cap, naming the cap", async () => {
    const path = join(dir, "big.json");
    writeFileSync(path, `[${slime},\n`);
    truncateSync(path, 300 * 1024 * 1024);
    const lines = async () => {
      for await (const _ of readLines(path)) break;
    };
    await expect(lines()).rejects.toThrow(
      /^a JSON document of 314572800 bytes is over the 256 MiB read whole; write it as JSON lines/,
    );
  });

  it("refuses a CSV table over the same cap before reading it, naming the cap", async () => {
    const path = join(dir, "big.csv");
    writeFileSync(path, "prompt,completion\na,b\n");
    truncateSync(path, 300 * 1024 * 1024);
    const lines = async () => {
      for await (const _ of readLines(path)) break;
    };
    await expect(lines()).rejects.toThrow(
      /^a CSV file of 314572800 bytes is over the 256 MiB read whole$/,
    );
  });
});

describe("drift's token cap", () => {
  it("counts a trajectory over the cap unchecked, with its length and the cap, in bounded time", async () => {
    const { driftFile } = await import("../drift/driftFile");
    const { DRIFT_MAX_TOKENS } = await import("../../src/core/drift/driftRules");
    const { createDriftTokenizers } = await import("../drift/driftTokenizers");
    const record = JSON.parse(slime) as Record<string, unknown>;
    const response = DRIFT_MAX_TOKENS + 1000;
    const long = {
      ...record,
      tokens: [...(record.tokens as number[]).slice(0, 13), ...new Array(response).fill(16)],
      response_length: response,
      loss_mask: new Array(response).fill(1),
      rollout_log_probs: new Array(response).fill(-0.5),
      response: "",
    };
    const path = join(dir, "long.jsonl");
    writeFileSync(path, `${slime}\n${JSON.stringify(long)}\n`);
    const tokenizers = createDriftTokenizers({ jobs: 1 });
    const started = Date.now();
    const file = await driftFile(path, { tokenizers, modes: ["roundtrip"] });
    await tokenizers.close();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(file.checked).toBe(1);
    expect(file.unchecked).toEqual([
      {
        line: 2,
        row: 0,
        id: expect.any(String),
        reason: `too long for drift (${13 + response} tokens, cap ${DRIFT_MAX_TOKENS})`,
        modes: ["roundtrip"],
      },
    ]);
  }, 60_000);
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { readRecords } from "./readLines";

const dir = mkdtempSync(join(tmpdir(), "read-records-"));

async function kinds(path: string, options: Parameters<typeof readRecords>[1] = {}) {
  const out: string[] = [];
  for await (const { lineNo, result } of readRecords(path, options)) {
    out.push(
      result.kind === "trajectories"
        ? `${lineNo} ${result.format} ×${result.trajectories.length}`
        : result.kind === "error"
          ? `${lineNo} error ${result.error.message.slice(0, 40)}`
          : `${lineNo} blank`,
    );
  }
  return out;
}

describe("readRecords, the one reader of a file's trajectories", () => {
  const slime = fixtureLines("reference-slime.jsonl").find((l) => l.trim() !== "") ?? "";
  const atropos = fixtureLines("reference-atropos.jsonl")[0] ?? "";
  const mixed = join(dir, "mixed.jsonl");
  writeFileSync(mixed, `${slime}\n\n${atropos}\n{ bad\n`);

  it("fixes the format of the first valid record for the rest, blank and bad records included", async () => {
    const fixed = await kinds(mixed);
    expect(fixed[0]).toBe("1 slime ×1");
    expect(fixed[1]).toBe("2 blank");
    expect(fixed[2]).toMatch(/^3 error /); // an atropos group is not a slime sample
    expect(fixed[3]).toMatch(/^4 error /);
    // Each record on its own (step statistics, forks): the atropos group reads.
    expect((await kinds(mixed, { fixFormat: false }))[2]).toBe("3 atropos ×2");
  });

  it("reads a byte range's lines by their numbers in the whole file", async () => {
    const size = Buffer.byteLength(`${slime}\n\n`);
    expect(
      await kinds(mixed, { range: { start: size, end: size + 1 }, format: "atropos" }),
    ).toEqual(["3 atropos ×2"]);
  });

  it("reads a JSON document as records, record r as line r + 1", async () => {
    const doc = join(dir, "episodes.json");
    writeFileSync(doc, `[${slime},\n${slime}]`);
    expect(await kinds(doc)).toEqual(["1 slime ×1", "2 slime ×1"]);
  });
});

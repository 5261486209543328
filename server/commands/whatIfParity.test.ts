import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atroposMismatchFile, nemoRlMismatchFile } from "../../e2e/fixtures/mismatchFiles";
import { type RowSummary, summarizeTrajectory } from "../../src/core/files/rowSummary";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { CORRECTION_RULES, defaultChoices } from "../../src/core/mismatch/corrections/registry";
import type { Trajectory } from "../../src/core/trajectory/types";
import { whatIfCells } from "../../src/features/mismatch/whatIf";
import { correctionsOfFile } from "../../src/workers/fileCorrections";
import { main } from "../cli";

// The what-if table's numbers (the file worker's `correctionsOfFile`, the cells the table shows)
// against `rollout-lens mismatch --correction <every name> --json` on the same files.

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-what-if-"));

async function cliReplays(path: string) {
  const out: string[] = [];
  const names = CORRECTION_RULES.map((r) => r.name).join(",");
  const code = await main(["mismatch", path, "--json", "--correction", names], {
    out: (t) => out.push(t),
    err: () => undefined,
  });
  expect(code).toBe(0);
  return JSON.parse(out.join("\n")).files[0].replays;
}

/** The file as the worker indexes it: its rows, and a reader of one line's trajectories. */
function indexed(path: string) {
  const lines = readFileSync(path, "utf8").split("\n");
  const byLine = new Map<number, readonly Trajectory[]>();
  const rows: RowSummary[] = [];
  lines.forEach((text, i) => {
    const result = readRolloutLine(text, i + 1);
    if (result.kind !== "trajectories") return;
    byLine.set(i + 1, result.trajectories);
    for (const t of result.trajectories)
      rows.push(summarizeTrajectory(t, rows.length, result.format));
  });
  const readLine = async (line: number) => byLine.get(line) ?? [];
  return { rows, readLine };
}

describe("the what-if table equals mismatch --json, correction by correction", () => {
  for (const [name, file] of [
    ["train_data_step1.jsonl", nemoRlMismatchFile()],
    ["atropos-groups.jsonl", atroposMismatchFile()],
  ] as const) {
    it(name, async () => {
      const path = join(dir, name);
      writeFileSync(path, file.text);
      const cli = await cliReplays(path);
      const { rows, readLine } = indexed(path);
      const table = await correctionsOfFile(rows, readLine, defaultChoices());
      expect(table.map((r) => r.name)).toEqual(CORRECTION_RULES.map((r) => r.name));
      expect(table).toEqual(cli);
      for (const [i, r] of table.entries()) expect(whatIfCells(r)).toEqual(whatIfCells(cli[i]));
      // Not a vacuous match: the files have tokens, and some correction masks or clips some.
      expect(table[0]?.compared).toBeGreaterThan(1000);
      expect(table.some((r) => r.masked > 0)).toBe(true);
      expect(table.some((r) => r.clipped > 0)).toBe(true);
    });
  }
});

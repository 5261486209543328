// Drift verdicts of one file as the CLI gives them (driftFile, in process or on worker threads)
// and as the browser's file scan gives them (scan clients on a pool of byte ranges), row by row,
// for the tests that hold the two to the same answers.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { driftFile } from "../server/drift/driftFile";
import { createDriftTokenizers } from "../server/drift/driftTokenizers";
import { loadDriftTokenizer } from "../server/tokenizers/compactTokenizers";
import { chosenForFile } from "../src/core/drift/driftInputs";
import type { ChosenTokenizer } from "../src/core/drift/fileDriftScan";
import type { DriftMode } from "../src/core/drift/types";
import { createFileIndex, finishFileIndex, indexChunk } from "../src/core/files/fileIndexer";
import { splitScanRanges } from "../src/core/files/scanRanges";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { chooseTokenizerFor } from "../src/core/tokenizer/chooseTokenizer";
import type { FileRanges, RolloutFileSource } from "../src/workers/rolloutFileProtocol";
import { createScanClient } from "../src/workers/scanClient";
import { scanDriftWithPool } from "../src/workers/scanPool";

/** A verdict per row: `unchecked`, `clean` or the first divergence; and the unchecked reasons. */
export interface Verdicts {
  readonly rows: (string | number)[];
  readonly reasons: Record<string, number>;
  readonly badLines: number;
}

export async function cliVerdicts(
  path: string,
  mode: DriftMode,
  jobs: number,
  picked?: string,
): Promise<Verdicts> {
  const tokenizers = createDriftTokenizers({ jobs });
  try {
    const file = await driftFile(path, { tokenizers, modes: [mode], picked });
    expect(file.readError).toBeUndefined();
    const rows: (string | number)[] = [];
    for (const t of file.trajectories) {
      rows[t.line - 1] = t.results[0]?.firstDivergenceIndex ?? "clean";
    }
    const reasons: Record<string, number> = {};
    for (const u of file.unchecked) {
      rows[u.line - 1] = "unchecked";
      reasons[u.reason] = (reasons[u.reason] ?? 0) + 1;
    }
    // Rows by line: the bad line holds no trajectory.
    return { rows: rows.filter((r) => r !== undefined), reasons, badLines: file.badLines };
  } finally {
    await tokenizers.close();
  }
}

/** The file indexed and cut into ranges as the browser's rollout-file worker does. */
function browserFile(
  path: string,
  targetBytes: number,
): { source: RolloutFileSource; file: FileRanges } {
  const bytes = new Uint8Array(readFileSync(path));
  const index = createFileIndex("parity.jsonl");
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  indexChunk(index, bytes, decode);
  finishFileIndex(index, decode);
  const source: RolloutFileSource = { kind: "blob", name: "parity.jsonl", blob: new Blob([bytes]) };
  const ranges = splitScanRanges(index.lines, index.rows, bytes.length, targetBytes);
  return { source, file: { ranges, format: index.format, totalBytes: bytes.length } };
}

export async function browserVerdicts(
  path: string,
  mode: DriftMode,
  picked?: string,
  rangeBytes = 600,
): Promise<Verdicts> {
  const { names, fallback } = createDriftTokenizers({ jobs: 1 });
  // As useDriftTokenizer chooses: the user's pick, else the file's first trajectory.
  const first = readRolloutLine(readFileSync(path, "utf8").split("\n")[0] ?? "", 1, undefined);
  const sample = first.kind === "trajectories" ? first.trajectories[0] : undefined;
  const choice = chooseTokenizerFor(sample, { picked, names, fallback });
  expect(choice.reason === "picked").toBe(picked !== undefined);
  const chosen: ChosenTokenizer | undefined = chosenForFile(choice, names, fallback);
  const clients = [0, 1].map(() => createScanClient({ port: undefined, load: loadDriftTokenizer }));
  const { source, file } = browserFile(path, rangeBytes);
  expect(file.ranges.length).toBeGreaterThan(1);
  const job = { tokenizer: choice.name, ...(chosen ? { chosen } : {}), source, mode, file };
  const scan = await scanDriftWithPool(clients, job, () => {});
  for (const client of clients) client.dispose();
  return {
    rows: scan.rows.map((r) =>
      r === undefined ? "unchecked" : (r.firstDivergenceIndex ?? "clean"),
    ),
    reasons: scan.unchecked,
    badLines: scan.badLines,
  };
}

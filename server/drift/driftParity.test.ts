import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChosenTokenizer } from "../../src/core/drift/fileDriftScan";
import type { DriftMode } from "../../src/core/drift/types";
import { createFileIndex, finishFileIndex, indexChunk } from "../../src/core/files/fileIndexer";
import { splitScanRanges } from "../../src/core/files/scanRanges";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { chooseTokenizerFor } from "../../src/core/tokenizer/chooseTokenizer";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import type { FileRanges, RolloutFileSource } from "../../src/workers/rolloutFileProtocol";
import { createScanClient } from "../../src/workers/scanClient";
import { scanDriftWithPool } from "../../src/workers/scanPool";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import { driftFile } from "./driftFile";
import { createDriftTokenizers } from "./driftTokenizers";

// One file, checked by the CLI's driftFile (in process and on two worker threads) and by the
// browser's file scan (drift clients on a pool of ranges, the service the Web Worker runs): every
// trajectory must get the same verdict from each, with the same reasons for what went unchecked.

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-drift-parity-"));
const reference = JSON.parse(fixtureLines("reference-rollout-lens.jsonl")[0] ?? "{}");

/** The reference episode (Qwen3 ids) with `ids` put at token `at` on, renamed and re-attributed. */
function episode(id: string, ids: readonly number[] = [], model?: string, at = 29): string {
  const tokenIds = [...reference.token_ids];
  tokenIds.splice(at, ids.length, ...ids);
  const named = model === undefined ? {} : { model, tokenizer: model };
  return JSON.stringify({ ...reference, id, token_ids: tokenIds, ...named });
}

let qwen: Tokenizer;
let path: string;
beforeAll(async () => {
  qwen = await loadDriftTokenizer("qwen3");
  // `hel` + `lo` + `!` where Qwen3 writes `hello` + `!`: drift in the trained tokens.
  const split = [...qwen.encode("hel"), ...qwen.encode("lo"), ...qwen.encode("!")];
  expect(split).toHaveLength(3);
  const lines = [
    episode("clean"),
    episode("drifted", split),
    episode("llama-named", [], "meta-llama/Meta-Llama-3-8B-Instruct"),
    episode("outside", [200_000, 200_001]),
    "{ not json",
    // Llama-3's <|begin_of_text|> where the template starts: the ids are not Qwen3's.
    episode("signature", [128_000], undefined, 0),
    episode("clean-2"),
  ];
  path = join(dir, "parity.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
}, 60_000);

/** A verdict per row: `unchecked`, `clean` or the first divergence; and the unchecked reasons. */
interface Verdicts {
  readonly rows: (string | number)[];
  readonly reasons: Record<string, number>;
  readonly badLines: number;
}

async function cliVerdicts(mode: DriftMode, jobs: number, picked?: string): Promise<Verdicts> {
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
function browserFile(targetBytes: number): { source: RolloutFileSource; file: FileRanges } {
  const bytes = new Uint8Array(readFileSync(path));
  const index = createFileIndex("parity.jsonl");
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  indexChunk(index, bytes, decode);
  finishFileIndex(index, decode);
  const source: RolloutFileSource = { kind: "blob", name: "parity.jsonl", blob: new Blob([bytes]) };
  const ranges = splitScanRanges(index.lines, index.rows, bytes.length, targetBytes);
  return { source, file: { ranges, format: index.format, totalBytes: bytes.length } };
}

async function browserVerdicts(mode: DriftMode, picked?: string): Promise<Verdicts> {
  const { names, fallback } = createDriftTokenizers({ jobs: 1 });
  // As useDriftTokenizer chooses: the user's pick, else the file's first trajectory.
  const first = readRolloutLine(readFileSync(path, "utf8").split("\n")[0] ?? "", 1, undefined);
  const sample = first.kind === "trajectories" ? first.trajectories[0] : undefined;
  const choice = chooseTokenizerFor(sample, { picked, names, fallback });
  expect(choice.reason).toBe(picked === undefined ? "recorded" : "picked");
  const chosen: ChosenTokenizer | undefined =
    choice.reason === "picked" ? undefined : { name: choice.name, names, fallback };
  const clients = [0, 1].map(() => createScanClient({ port: undefined, load: loadDriftTokenizer }));
  const { source, file } = browserFile(600);
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

describe("drift verdicts are the same in the CLI and the browser's file scan", () => {
  it.each(["roundtrip", "text"] as const)(
    "%s: a record naming another tokenizer, ids that are not the tokenizer's, drift",
    async (mode) => {
      const cli = await cliVerdicts(mode, 1);
      expect(cli.rows).toHaveLength(6);
      expect(cli.rows.slice(2, 5)).toEqual(["unchecked", "unchecked", "unchecked"]);
      expect(Object.keys(cli.reasons).sort()).toEqual([
        expect.stringMatching(/^tokenizer mismatch: 2 token id\(s\) outside qwen3's vocabulary/),
        "tokenizer mismatch: the record names llama3, but the file is checked with qwen3 (chosen from its first trajectory)",
        expect.stringMatching(/^tokenizer mismatch: token 0 is 128000, llama3's/),
      ]);
      expect(cli.badLines).toBe(1);
      if (mode === "roundtrip")
        expect([cli.rows[0], cli.rows[1], cli.rows[5]]).toEqual(["clean", 29, "clean"]);
      expect(await browserVerdicts(mode)).toEqual(cli);
      expect(await cliVerdicts(mode, 2)).toEqual(cli);
    },
    60_000,
  );

  it("with a picked tokenizer the record's name is not a reason, in both", async () => {
    const cli = await cliVerdicts("roundtrip", 1, "qwen3");
    expect(cli.rows[2]).toBe("clean");
    expect(Object.keys(cli.reasons)).toHaveLength(2);
    expect(await browserVerdicts("roundtrip", "qwen3")).toEqual(cli);
  }, 60_000);
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import { firstDivergence } from "../../src/core/drift/detectDrift";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import { flattenSegments } from "../../src/core/trajectory/flatten";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { browserVerdicts, cliVerdicts, type Verdicts } from "../../test-support/driftVerdicts";
import { hostileLines } from "../../test-support/hostileCorpus";
import { generateCorpus } from "../../test-support/syntheticCorpus";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import { resolveTokenizerDir } from "../tokenizers/loadTokenizer";

// A generated agent corpus (code, JSON, CJK, emoji, whitespace and digit runs, every injected
// drift kind) with hostile lines between its rows: the CLI, the browser's file scan and the native
// Rust tokenizers must give every row the same verdict, and the CLI and the browser the same
// reasons for the rows they leave unchecked.

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-drift-parity-corpus-"));
let path = "";
let native: NativeTokenizer;

/** Every 5th row a hostile line (malformed, wrong types, huge values) among the generated rows. */
beforeAll(async () => {
  native = NativeTokenizer.fromFile(`${resolveTokenizerDir("qwen3")}/tokenizer.json`);
  const qwen = await loadDriftTokenizer("qwen3");
  const encode = async (texts: readonly string[]) =>
    (await native.encodeBatch([...texts], { addSpecialTokens: false })).map((e) => e.getIds());
  const corpus = await generateCorpus(qwen, encode, { seed: 31, count: 90, driftRate: 0.4 });
  const seeds = fixtureLines("reference-rollout-lens.jsonl");
  const hostile = hostileLines(seeds, 24, 0, 20_261_126).map((h) => h.text.replace(/\n/g, " "));
  const lines = corpus.flatMap((c, i) => {
    const row = JSON.stringify(writeRolloutLens(c.trajectory));
    return i % 4 === 3 && hostile.length > 0 ? [row, hostile.pop() ?? ""] : [row];
  });
  path = join(dir, "corpus.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
}, 120_000);

/** The native verdict of each checked row: decode, encode again, first index that differs. */
async function nativeVerdicts(cli: Verdicts): Promise<(string | number)[]> {
  const ids: number[][] = [];
  for (const [i, text] of readFileSync(path, "utf8").split("\n").entries()) {
    const read = readRolloutLine(text, i + 1, "rollout-lens/v1");
    if (read.kind !== "trajectories") continue;
    for (const t of read.trajectories) ids.push(flattenSegments(t.segments).tokenIds);
  }
  expect(ids).toHaveLength(cli.rows.length);
  const texts = await native.decodeBatch(ids, false);
  const again = await native.encodeBatch(texts, { addSpecialTokens: false });
  return ids.map((row, i) =>
    cli.rows[i] === "unchecked"
      ? "unchecked"
      : (firstDivergence(row, again[i]?.getIds() ?? []) ?? "clean"),
  );
}

describe("drift verdicts on a generated corpus with hostile lines", () => {
  it("are the same in the CLI, the browser's scan and the native tokenizers", async () => {
    const cli = await cliVerdicts(path, "roundtrip", 1);
    // The corpus really holds clean rows, drifted rows and lines no reader accepts.
    expect(cli.rows.filter((r) => r === "clean").length).toBeGreaterThan(20);
    expect(cli.rows.filter((r) => typeof r === "number").length).toBeGreaterThan(15);
    expect(cli.badLines).toBeGreaterThan(5);
    expect(await nativeVerdicts(cli)).toEqual(cli.rows);
    expect(await browserVerdicts(path, "roundtrip", undefined, 20_000)).toEqual(cli);
    expect(await cliVerdicts(path, "roundtrip", 2)).toEqual(cli);
  }, 180_000);
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { browserVerdicts, cliVerdicts } from "../../test-support/driftVerdicts";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";

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

describe("drift verdicts are the same in the CLI and the browser's file scan", () => {
  it.each(["roundtrip", "text"] as const)(
    "%s: a record naming another tokenizer, ids that are not the tokenizer's, drift",
    async (mode) => {
      const cli = await cliVerdicts(path, mode, 1);
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
      expect(await browserVerdicts(path, mode)).toEqual(cli);
      expect(await cliVerdicts(path, mode, 2)).toEqual(cli);
    },
    60_000,
  );

  it("ids of no known family in a record naming none: unchecked unless a tokenizer is picked, in both", async () => {
    // The reference's ids without its tokenizer and model, and without the <|im_start|> that
    // tells Qwen's ids: nothing says which vocabulary they are.
    const anonymous = (id: string) => {
      const { model: _m, tokenizer: _t, ...rest } = JSON.parse(episode(id));
      return JSON.stringify({ ...rest, token_ids: [198, ...rest.token_ids.slice(1)] });
    };
    const unknown = join(dir, "unknown.jsonl");
    writeFileSync(unknown, `${[anonymous("a"), anonymous("b"), anonymous("c")].join("\n")}\n`);
    const cli = await cliVerdicts(unknown, "roundtrip", 1);
    expect(cli.rows).toEqual(["unchecked", "unchecked", "unchecked"]);
    expect(Object.keys(cli.reasons)).toEqual([expect.stringMatching(/^tokenizer unknown: /)]);
    expect(await browserVerdicts(unknown, "roundtrip")).toEqual(cli);
    const picked = await cliVerdicts(unknown, "roundtrip", 1, "qwen3");
    expect(picked.rows).toEqual(["clean", "clean", "clean"]);
    expect(await browserVerdicts(unknown, "roundtrip", "qwen3")).toEqual(picked);
  }, 60_000);

  it("with a picked tokenizer the record's name is not a reason, in both", async () => {
    const cli = await cliVerdicts(path, "roundtrip", 1, "qwen3");
    expect(cli.rows[2]).toBe("clean");
    expect(Object.keys(cli.reasons)).toHaveLength(2);
    expect(await browserVerdicts(path, "roundtrip", "qwen3")).toEqual(cli);
  }, 60_000);
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { runCommand as run } from "../../test-support/runCli";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import type { MismatchFlags } from "./commandFlags";
import type { CommandIo } from "./commandIo";
import { driftCommand } from "./drift";
import { runMismatch } from "./mismatch";
import { serveConfigFrom } from "./serveOptions";
import { mismatchSpec, parseCommand, serveSpec, viewSpec } from "./spec";
import { validateCommand } from "./validate";

// JSONL dumps no known producer wrote (OpenRLHF/TRL-style prompt_ids + completion_ids), read
// with and without `--map` by every command that takes it.

type Command = (args: string[], io: CommandIo) => Promise<number>;

const mismatchCommand: Command = async (args, io) => {
  const parsed = parseCommand<MismatchFlags>(mismatchSpec(), args, io);
  return typeof parsed === "number" ? parsed : runMismatch(parsed, io);
};

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-map-"));
function tempFile(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const QWEN_IM_END = 151645;
const chatPrompt = (user: string) => `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;
const MAP = "prompt=prompt_ids,response=completion_ids,logprobs=completion_logprobs,reward=score";

let qwen: Tokenizer;
let clean: string;
let drifting: string;
let noLogprobs: string;
let badLine: string;
let responseTokens: number;
beforeAll(async () => {
  qwen = await loadTokenizer("qwen3");
  const prompt = qwen.encode(chatPrompt("Compute f(x)."));
  const row = (completion: number[], extra: Record<string, unknown> = {}) => ({
    prompt_ids: prompt,
    completion_ids: completion,
    completion_logprobs: completion.map(() => -0.25),
    score: 1,
    step: 3,
    ...extra,
  });
  const ok = [...qwen.encode("Sure: f(x) = 2x."), QWEN_IM_END];
  responseTokens = ok.length;
  // `"f(x` then 9940 + 11248: the tokenizer would merge these bytes differently (E1 resegment).
  const e1 = [...qwen.encode('{"expr": "f(x'), 9940, 11248, QWEN_IM_END];
  clean = tempFile("clean.jsonl", [JSON.stringify(row(ok)), JSON.stringify(row(ok))]);
  drifting = tempFile("drift.jsonl", [JSON.stringify(row(ok)), JSON.stringify(row(e1))]);
  // A second lane, kept verbatim (unmapped columns stay): a full-length `logprob_lanes`.
  const n = prompt.length + ok.length;
  const lanes = {
    logprob_lanes: { trainer: [...prompt.map(() => null), ...ok.map(() => -0.5)] },
  };
  noLogprobs = tempFile("lanes.jsonl", [JSON.stringify(row(ok, lanes))]);
  expect(lanes.logprob_lanes.trainer).toHaveLength(n);
  badLine = tempFile("bad.jsonl", [
    JSON.stringify(row(ok)),
    JSON.stringify({ ...row(ok), completion_ids: [19, "x"] }),
    JSON.stringify({ ...row(ok), completion_logprobs: [-1] }),
  ]);
}, 60_000);

describe("validate --map", () => {
  it("without --map every line fails and the flag that reads it is printed; exit 2", async () => {
    const r = await run(validateCommand, [clean]);
    expect(r.code).toBe(2);
    expect(r.out).toContain("0 valid lines (2 lines, 0 blank, 2 bad)");
    expect(r.out).toContain(
      "line 1: unknown record format (keys: prompt_ids, completion_ids, completion_logprobs, score, step); its columns look like token ids: read it with --map " +
        MAP,
    );
  });

  it("with --map every line reads as a slime sample; exit 0", async () => {
    const r = await run(validateCommand, [clean, "--map", MAP]);
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.out).toContain("slime, 2 trajectories from 2 valid lines (2 lines, 0 blank, 0 bad)");
  });

  it("reads a JSON table (one document) through the mapping too", async () => {
    const records = readFileSync(clean, "utf8").trim().split("\n");
    const table = tempFile("table.json", [`[${records.join(",")}]`]);
    expect((await run(validateCommand, [table])).code).toBe(2);
    const r = await run(validateCommand, [table, "--map", MAP]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("slime, 2 trajectories from 2 valid records");
  });

  it("bad lines name the line and the mapped column; exit 1", async () => {
    const r = await run(validateCommand, [badLine, "--map", MAP]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("line 2 [completion_ids[1]]: expected a token id");
    expect(r.out).toContain(
      `line 3 [completion_logprobs]: 1 values for the ${responseTokens} response tokens of completion_ids`,
    );
  });

  it("a bad spec or a --format it cannot go with is a usage error (exit 2)", async () => {
    const bad = await run(validateCommand, [clean, "--map", "prompt=prompt_ids,resp=x"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/validate: --map: unknown key "resp" \(keys: tokens, prompt,/);
    const missing = await run(validateCommand, [clean, "--map", "prompt=prompt_ids"]);
    expect(missing.err).toMatch(/--map: "prompt" needs "response"/);
    const forced = await run(validateCommand, [clean, "--map", MAP, "--format", "atropos"]);
    expect(forced.code).toBe(2);
    expect(forced.err).toMatch(/cannot be used with --format atropos/);
    const column = await run(validateCommand, [clean, "--map", "tokens=input_ids"]);
    expect(column.code).toBe(2);
    expect(column.out).toContain(
      "line 1 [input_ids]: missing: the column mapping reads this column",
    );
  });

  it("--help documents the syntax", async () => {
    const r = await run(validateCommand, ["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("--map <SPEC>");
    expect(r.out).toContain("split layout: prompt=COL, response=COL (both required)");
  });
});

describe("drift --map", () => {
  it("without --map nothing is checked (exit 2), the flag is suggested", async () => {
    const r = await run(driftCommand, [clean, "--tokenizer", "qwen3"]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`read it with --map ${MAP}`);
  });

  it("with --map: clean ids exit 0, a resegmented completion drifts (exit 1) at its line", async () => {
    const ok = await run(driftCommand, [clean, "--map", MAP]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/qwen3/);
    const json = await run(driftCommand, [drifting, "--map", MAP, "--json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as {
      files: {
        checked: number;
        drifted: number;
        errors: unknown[];
        results: { line: number; first_divergence_index: number | null }[];
      }[];
    };
    expect(report.files[0]).toMatchObject({ checked: 2, drifted: 1, errors: [] });
    const drifted = report.files[0]?.results.filter((x) => x.first_divergence_index !== null);
    expect(drifted?.map((x) => x.line)).toEqual([2]);
    // Worker threads check the trajectories read through the mapping the same way.
    const pooled = await run(driftCommand, [drifting, "--map", MAP, "--jobs", "2"]);
    expect(pooled.code).toBe(1);
    expect(pooled.out).toContain("drift.jsonl:2");
  }, 60_000);
});

describe("mismatch --map", () => {
  it("without --map: bad lines with the flag suggested, exit 2", async () => {
    const r = await run(mismatchCommand, [noLogprobs]);
    expect(r.code).toBe(2);
    expect(r.out).toContain("read it with --map prompt=prompt_ids,response=completion_ids");
  });

  it("with --map the sampled lane is the mapped logprobs; a kept lane compares to it (exit 0)", async () => {
    const r = await run(mismatchCommand, [noLogprobs, "--map", MAP, "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      files: {
        errors: unknown[];
        trajectories: { lanes: string[]; stats: { compared: number } }[];
      }[];
    };
    expect(report.files[0]?.errors).toEqual([]);
    expect(report.files[0]?.trajectories[0]?.lanes).toEqual(["trainer", "sampled"]);
    expect(report.files[0]?.trajectories[0]?.stats.compared).toBe(responseTokens);
    // Only the mapped logprobs: read fine, nothing to compare them with (exit 2, no bad line).
    const one = await run(mismatchCommand, [clean, "--map", MAP]);
    expect(one.code).toBe(2);
    expect(one.out).toContain("nothing compared");
    expect(one.out).not.toContain("unknown record format");
  });
});

describe("serve/view --map", () => {
  it("is validated into the server config", () => {
    const parsed = parseCommand<{ map?: string }>(viewSpec(), [clean, "--map", MAP]);
    if (typeof parsed === "number") throw new Error("usage error");
    const config = serveConfigFrom(parsed.values, parsed.positionals);
    expect(config.map).toBe(MAP);
    const bad = parseCommand<{ map?: string }>(serveSpec(), [clean, "--map", "tokens"]);
    if (typeof bad === "number") throw new Error("usage error");
    expect(() => serveConfigFrom(bad.values, bad.positionals)).toThrow(
      /--map: "tokens" is not key=column/,
    );
  });
});

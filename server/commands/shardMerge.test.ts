import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines, fixturePath } from "../../src/test/fixtureFiles";
import { runCommand as run } from "../../test-support/runCli";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { driftCommand } from "./drift";
import { mergeReportsCommand } from "./mergeReports";

type Json = Record<string, unknown>;

const root = mkdtempSync(join(tmpdir(), "rollout-lens-shards-"));
const QWEN_IM_END = 151645;
let qwen: Tokenizer;

/**
 * A slime file of many lines: clean rows, rows with an E1 split (drift), a bad line, blank lines,
 * a Llama-3 atropos group (unchecked: not the file's tokenizer), CRLF endings on some lines.
 */
function manyLines(): string {
  const prompt = qwen.encode("<|im_start|>user\nCompute f(x).<|im_end|>\n<|im_start|>assistant\n");
  const sample = (k: number, response: number[]) =>
    JSON.stringify({
      group_index: k,
      tokens: [...prompt, ...response],
      response_length: response.length,
      loss_mask: response.map(() => 1),
      rollout_log_probs: response.map(() => -0.25),
      status: "completed",
      reward: 1,
    });
  const clean = [...qwen.encode("Sure: f(x) = 2x."), QWEN_IM_END];
  const e1 = [...qwen.encode('{"expr": "f(x'), 9940, 11248, QWEN_IM_END];
  // A slime record of Llama-3 ids: read, but not checkable with the file's tokenizer (qwen3).
  const group = JSON.parse(fixtureLines("atropos-rubiks-trimmed.jsonl")[0] ?? "{}") as {
    tokens: number[][];
  };
  const llamaIds = group.tokens[0] ?? [];
  const llama = JSON.stringify({
    tokens: llamaIds,
    response_length: 10,
    loss_mask: Array.from({ length: 10 }, () => 1),
    status: "completed",
    reward: 0,
  });
  const lines: string[] = [];
  for (let k = 0; k < 23; k++) {
    if (k === 9) lines.push('{"tokens": [1, 2, 3], "response_length": ');
    else if (k % 7 === 3) lines.push("");
    else if (k === 13) lines.push(llama);
    else if (k % 4 === 1) lines.push(sample(k, e1));
    else lines.push(`${sample(k, clean)}${k % 5 === 0 ? "\r" : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

let dir: string;
let big: string;

beforeAll(async () => {
  qwen = await loadTokenizer("qwen3");
  dir = join(root, "runs");
  mkdirSync(join(dir, "step_1"), { recursive: true });
  mkdirSync(join(dir, "step_2", "eval"), { recursive: true });
  for (const [name, to] of [
    ["reference-slime.jsonl", "step_1/slime.jsonl"],
    ["reference-strands.jsonl", "step_1/strands.jsonl"],
    ["reference-rollout-lens.jsonl", "step_2/rl.jsonl"],
    ["reference-atropos.jsonl", "step_2/eval/atropos.jsonl"],
    ["atropos-rubiks-trimmed.jsonl", "step_2/rubiks.jsonl"],
  ] as const) {
    cpSync(fixturePath(name), join(dir, to));
  }
  big = join(dir, "step_2", "many.jsonl");
  writeFileSync(big, manyLines());
}, 60_000);

/** Runs `drift ARGS --json --shard I/N` for every I, merges the reports, returns all of it. */
async function shardAndMerge(args: string[], count: number) {
  const reports: string[] = [];
  const parts: Json[] = [];
  for (let index = 0; index < count; index++) {
    const shard = await run(driftCommand, [...args, "--json", "--shard", `${index}/${count}`]);
    expect(shard.err).toBe("");
    const path = join(root, `report-${count}-${index}-${reports.length}.json`);
    writeFileSync(path, shard.out);
    reports.push(path);
    parts.push(JSON.parse(shard.out) as Json);
  }
  const merged = await run(mergeReportsCommand, [...reports, "--json"]);
  return { reports, parts, merged };
}

/** `path line#row` of every trajectory a report names (checked or unchecked), with repeats. */
function trajectoryKeys(report: Json): string[] {
  return (report.files as Json[]).flatMap((f) => {
    const checked = new Set((f.results as Json[]).map((r) => `${f.path} ${r.line}#${r.row}`));
    const unchecked = (f.unchecked_trajectories as Json[]).map(
      (t) => `${f.path} ${t.line}#${t.row}`,
    );
    return [...checked, ...unchecked];
  });
}

describe("drift --shard and merge-reports", () => {
  it.each([
    ["a directory of files", () => [dir], [1, 2, 3, 7]],
    ["one multi-line file (byte ranges)", () => [big], [1, 2, 3, 5, 8, 40]],
  ])(
    "on %s, N shards check every trajectory exactly once and merge into the unsharded report",
    async (_what, args, counts) => {
      const whole = await run(driftCommand, [...args(), "--json"]);
      const wholeReport = JSON.parse(whole.out) as Json;
      const keys = trajectoryKeys(wholeReport);
      expect(keys.length).toBeGreaterThan(10);
      expect(new Set(keys).size).toBe(keys.length);
      // The fixture has drift, unchecked trajectories and a bad line: every kind is merged.
      const files = wholeReport.files as Json[];
      expect(files.some((f) => Number(f.drifted) > 0)).toBe(true);
      expect(files.some((f) => Number(f.unchecked) > 0)).toBe(true);
      for (const count of counts) {
        const { parts, merged } = await shardAndMerge(args(), count);
        const shardKeys = parts.flatMap(trajectoryKeys);
        expect(shardKeys.sort()).toEqual([...keys].sort());
        expect(merged.err).toBe("");
        expect(JSON.parse(merged.out)).toEqual(wholeReport);
        expect(merged.code).toBe(whole.code);
      }
    },
    120_000,
  );

  it("a directory is expanded in sorted order; a shard with no file prints an empty report, exit 0", async () => {
    const whole = JSON.parse((await run(driftCommand, [dir, "--json"])).out) as Json;
    const paths = (whole.files as Json[]).map((f) => String(f.path));
    expect(paths).toEqual([...paths].sort());
    expect(paths).toHaveLength(6);
    const glob = JSON.parse((await run(driftCommand, [`${dir}/**/*.jsonl`, "--json"])).out) as Json;
    expect(glob).toEqual(whole);
    const counts = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        run(driftCommand, [join(dir, "step_1"), "--json", "--shard", `${index}/12`]),
      ),
    );
    const empty = counts.find(
      (c) => (JSON.parse(c.out) as Json & { files: [] }).files.length === 0,
    );
    expect(empty?.code).toBe(0);
    expect(JSON.parse(empty?.out ?? "{}")).toMatchObject({ shard: { count: 12 }, files: [] });
  }, 120_000);

  it("refuses a trajectory reported twice, naming both reports, and a missing shard", async () => {
    const { reports } = await shardAndMerge([big], 3);
    const [a, b, c] = reports as [string, string, string];
    const twice = await run(mergeReportsCommand, [a, b, c, a, "--json"]);
    expect(twice.code).toBe(2);
    expect(twice.out).toBe("");
    expect(twice.err).toContain(`shard 0/3 is given twice: ${a} and ${a}`);
    expect(twice.err).toContain(`many.jsonl line 1 is reported by both ${a} and ${a}`);
    const missing = await run(mergeReportsCommand, [a, c]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("shard 1/3 is missing");
    expect(missing.err).toMatch(/many\.jsonl: bytes \d+–\d+ are in no report/);
    // Two unsharded runs of the same file: every trajectory twice.
    const whole = join(root, "whole.json");
    writeFileSync(whole, (await run(driftCommand, [big, "--json"])).out);
    const copy = join(root, "whole-copy.json");
    cpSync(whole, copy);
    const dup = await run(mergeReportsCommand, [whole, copy]);
    expect(dup.code).toBe(2);
    expect(dup.err).toContain(`is reported whole by ${whole} and ${copy}`);
    expect(dup.err).toMatch(new RegExp(`line 1 is reported by both ${whole} and ${copy}`));
  }, 120_000);

  it("merges into a human summary without --json, exit code by drift's rules", async () => {
    const { reports } = await shardAndMerge([big], 2);
    const human = await run(mergeReportsCommand, reports);
    expect(human.code).toBe(2); // a bad line and unchecked rows
    expect(human.out).toMatch(/many\.jsonl:2 .* roundtrip: first divergence at token \d+/);
    expect(human.out).toContain("many.jsonl: line 10: ");
    expect(human.out).toMatch(/many\.jsonl:14 .* unchecked: tokenizer mismatch/);
    expect(human.out).toMatch(/many\.jsonl: slime, \d+ trajectories \(\d+ checked, 1 unchecked\)/);
  }, 120_000);

  it("says what is wrong with a report that is not one", async () => {
    const junk = join(root, "junk.json");
    writeFileSync(junk, '{"nope": 1}');
    const notJson = join(root, "not.json");
    writeFileSync(notJson, "{");
    expect((await run(mergeReportsCommand, [junk])).err).toContain(
      `${junk}: not a drift --json report (no "files" array)`,
    );
    const bad = await run(mergeReportsCommand, [notJson]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`merge-reports: ${notJson}: not a --json report (`);
    const empty = join(root, "empty.json");
    writeFileSync(empty, "");
    const none = await run(mergeReportsCommand, [empty]);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`merge-reports: ${empty}: empty, not a --json report`);
    expect((await run(driftCommand, [big, "--shard", "3/3"])).err).toContain("--shard must be I/N");
  });

  it("streams --json through io.write when there is one: the same report, written piece by piece", async () => {
    const buffered = await run(driftCommand, [dir, "--json"]);
    const pieces: string[] = [];
    const out: string[] = [];
    const code = await driftCommand([dir, "--json"], {
      out: (t) => out.push(t),
      err: () => {},
      write: (t) => pieces.push(t),
    });
    expect(code).toBe(buffered.code);
    expect(out).toEqual([]);
    expect(pieces.join("").endsWith("\n")).toBe(true);
    expect(JSON.parse(pieces.join(""))).toEqual(JSON.parse(buffered.out));
  }, 60_000);
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { namedBytes } from "../../../test-support/namedBytes";
import { fixtureLines, fixturePath } from "../../test/fixtureFiles";
import { primeRolloutParquet } from "../../test/parquetFixtures";
import { rolloutDumpSource } from "../files/torchRecords";
import { parseJsonLine } from "./jsonLine";
import { openParquet, readParquetRecords } from "./parquet";
import { ADAPTERS, detectFormat } from "./readRolloutLine";
import type { FormatId } from "./types";

const SKYRL_PKL = "dumps/skyrl/dumped_data/global_step_1_training_input.pkl";

/** Every committed fixture of a record format, and the format each of its lines must be read as. */
const FIXTURES: readonly { file: string; format: FormatId }[] = [
  { file: "reference-rollout-lens.jsonl", format: "rollout-lens/v1" },
  { file: "reference-slime.jsonl", format: "slime" },
  { file: "validate-mixed.jsonl", format: "slime" },
  { file: "reference-atropos.jsonl", format: "atropos" },
  { file: "atropos-rubiks-trimmed.jsonl", format: "atropos" },
  { file: "atropos-managed-padded.jsonl", format: "atropos" },
  { file: "reference-strands.jsonl", format: "strands" },
  { file: "reference-verl.jsonl", format: "verl" },
  { file: "reference-atif.jsonl", format: "atif" },
  { file: "reference-nemo-rl.jsonl", format: "nemo-rl" },
  { file: "reference-prime.jsonl", format: "prime" },
  { file: "reference-art.jsonl", format: "art" },
  { file: "prime-rl-run/rollouts/step_0/train/all/traces.jsonl", format: "verifiers" },
  { file: "dumps/skyrl/dumped_evals/global_step_10_evals/gsm8k.jsonl", format: "skyrl-eval" },
  { file: "dumps/nemo-rl/val_data_step3.jsonl", format: "nemo-rl-val" },
  { file: "dumps/areal/rollout/3/1742.jsonl", format: "areal" },
  { file: "dumps/miles/trajectory/4.jsonl", format: "miles-trajectory" },
  { file: "dumps/text-table/samples.jsonl", format: "text-table" },
  { file: "tinker-run/capture/sample.jsonl", format: "tinker-capture" },
  {
    file: "tinker-run/iteration_000000/train_rollout_summaries.jsonl",
    format: "tinker-summary",
  },
];

const cases = FIXTURES.flatMap(({ file, format }) =>
  fixtureLines(file)
    .map((text, i) => ({ file, line: i + 1, text, format }))
    .filter((c) => c.text.trim().length > 0),
);

describe("format detection over every fixture", () => {
  it.each(cases)("$file:$line is $format, and no other adapter claims it", ({ text, format }) => {
    const parsed = parseJsonLine(text);
    // validate-mixed.jsonl holds a deliberately truncated line: it is not a record of any format.
    if (!parsed.ok) return;
    const value = parsed.value as Record<string, unknown>;
    expect(detectFormat(value)).toBe(format);
    // No false detection: no adapter before its own in the sniffing order claims the line, and
    // the key-pattern adapters of other formats do not claim it anywhere in the order (only
    // rollout-lens/v1 lines, a superset marked by their `format` key, also look like strands).
    const claimed = ADAPTERS.filter((a) => a.detect(value)).map((a) => a.id);
    expect(claimed[0]).toBe(format);
    const others = claimed.slice(1);
    expect(others).toEqual(format === "rollout-lens/v1" ? ["strands"] : []);
  });

  it("covers every format", () => {
    const covered = [...FIXTURES.map((f) => f.format), "skyrl-batch", "prime-rl-rollouts"];
    expect(new Set(covered)).toEqual(new Set(ADAPTERS.map((a) => a.id)));
  });
});

/*
 * The records a binary file's reader makes: a SkyRL batch's rows and an older prime-rl rollout
 * table's, each turned into a slime Sample marked with its producer. The producer's adapter
 * claims it first; slime's, which reads it alike, is the only other.
 */
describe("format detection of the records binary files are read into", () => {
  async function skyrlRecords(): Promise<unknown[]> {
    const bytes = new Uint8Array(readFileSync(fixturePath(SKYRL_PKL)));
    const source = await rolloutDumpSource([namedBytes("global_step_1_training_input.pkl", bytes)]);
    return source.read(0, source.rows);
  }

  async function primeRecords(): Promise<unknown[]> {
    const buffer = primeRolloutParquet();
    const parquet = await openParquet({
      byteLength: buffer.byteLength,
      slice: (start: number, end?: number) => Promise.resolve(buffer.slice(start, end)),
    });
    return readParquetRecords(parquet, 0, 3);
  }

  it.each([
    ["a SkyRL dumped_data batch row", skyrlRecords, "skyrl-batch"],
    ["an older prime-rl rollout table's row", primeRecords, "prime-rl-rollouts"],
  ] as const)("%s is %s, and only slime besides claims it", async (_, records, format) => {
    const values = (await records()) as Record<string, unknown>[];
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) {
      expect(detectFormat(value)).toBe(format);
      expect(ADAPTERS.filter((a) => a.detect(value)).map((a) => a.id)).toEqual([format, "slime"]);
    }
  });
});

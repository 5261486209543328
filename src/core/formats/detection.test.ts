import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { parseJsonLine } from "./jsonLine";
import { ADAPTERS, detectFormat } from "./readRolloutLine";
import type { FormatId } from "./types";

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
    expect(new Set(FIXTURES.map((f) => f.format))).toEqual(new Set(ADAPTERS.map((a) => a.id)));
  });
});

import { describe, expect, it } from "vitest";
import { parseMapSpec } from "../../src/core/formats/columnMapping";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { expectSoundRead, hostileLines } from "../../test-support/hostileCorpus";

// JSONL dumps no known producer wrote, mutated by the hostile corpus and read through a column
// mapping (`--map`): never a throw, every error names its line, whatever loads fits the model.

const seed = (k: number) => ({
  prompt_ids: [151644, 872, 198, 16 + k],
  completion_ids: [19, 20 + k, 151645],
  completion_logprobs: [-0.5, -0.25, -0.125],
  completion_mask: [1, 1, 1],
  input_ids: [151644, 872, 198, 19, 151645],
  loss_mask: [0, 0, 0, 1, 1],
  logprobs: [0, 0, 0, -0.5, -0.25],
  prompt_len: 3,
  score: k / 4,
});
const SEEDS = [0, 1, 2, 3].map((k) => JSON.stringify(seed(k)));
const SPECS = [
  "prompt=prompt_ids,response=completion_ids,logprobs=completion_logprobs,mask=completion_mask,reward=score",
  "tokens=input_ids,mask=loss_mask,logprobs=logprobs,reward=score",
  "tokens=input_ids,prompt-length=prompt_len,logprobs=logprobs",
];
const MAPPINGS = SPECS.map((spec) => {
  const parsed = parseMapSpec(spec);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.mapping;
});
const CORPUS = hostileLines(SEEDS, 3_000, 10, 20_261_124);

describe(`${CORPUS.length} hostile lines read through column mappings`, {
  timeout: 180_000,
}, () => {
  it("no throw, every error names its line, every load satisfies the model", () => {
    let errors = 0;
    let loaded = 0;
    CORPUS.forEach((line, i) => {
      for (const mapping of MAPPINGS) {
        const result = readRolloutLine(line.text, i + 1, undefined, "dump.jsonl", mapping);
        const kind = expectSoundRead(result, i + 1);
        if (kind === "error") errors++;
        else if (kind === "trajectories") loaded++;
      }
    });
    // Both outcomes occur: the corpus breaks lines, and leaves some whole.
    expect(errors).toBeGreaterThan(0);
    expect(loaded).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from "vitest";
import { loadTokenizer } from "../../test-support/tokenizers";
import { checkTurnPrefixes } from "../core/drift/prefixCheck";
import { readRolloutLine } from "../core/formats/readRolloutLine";
import { fixtureLines } from "../test/fixtureFiles";
import { tokenizerServicePort } from "../test/tokenizerServicePort";
import { createTokenizerClient } from "./tokenizerClient";

function strippedThinking() {
  const [line = ""] = fixtureLines("qwen3-stripped-thinking.jsonl");
  const read = readRolloutLine(line, 1);
  if (read.kind !== "trajectories" || !read.trajectories[0])
    throw new Error("fixture does not read");
  return read.trajectories[0];
}

describe("the per-turn prefix check in the tokenizer worker", () => {
  it("answers what the core check gives on the whole trajectory, from the slim input it is sent", async () => {
    const t = strippedThinking();
    const client = createTokenizerClient({ port: tokenizerServicePort(loadTokenizer) });
    const report = await client.turns("qwen3", t);
    expect(report).toEqual(checkTurnPrefixes(t, await loadTokenizer("qwen3")));
    expect(report.turns.map((k) => [k.turn, k.class, k.rule ?? null])).toEqual([
      [1, "CLEAN", null],
      [2, "FORK", "qwen3.strip-think"],
    ]);
    client.dispose();
  });
});

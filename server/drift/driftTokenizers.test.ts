import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { driftFile } from "./driftFile";
import { createDriftTokenizers, type DriftTokenizers } from "./driftTokenizers";

describe("createDriftTokenizers", () => {
  it("offers the server's catalog (bundled qwen3 and llama3, default qwen3) and loads each once", async () => {
    const tokenizers = createDriftTokenizers({ jobs: 1 });
    // Then the optional families whose packages are installed (dev dependencies here).
    expect(tokenizers.names).toEqual([
      "qwen3",
      "llama3",
      "llama3_1",
      "deepseek_v3",
      "gptoss",
      "gemma3",
    ]);
    expect(tokenizers.fallback).toBe("qwen3");
    const first = tokenizers.load("llama3");
    expect(tokenizers.load("llama3")).toBe(first);
    expect((await first).tokenizer.vocabSize).toBe(128256);
    await tokenizers.close();
  }, 60_000);

  it("a run over files of one family asks for that family's tokenizer only", async () => {
    const real = createDriftTokenizers({ jobs: 1 });
    const asked: string[] = [];
    const counting: DriftTokenizers = {
      ...real,
      load: (name) => {
        asked.push(name);
        return real.load(name);
      },
    };
    const path = fixturePath("atropos-rubiks-trimmed.jsonl");
    for (const _ of [1, 2]) {
      const file = await driftFile(path, { tokenizers: counting, modes: ["roundtrip"] });
      expect(file.tokenizer).toEqual({ name: "llama3", reason: "ids" });
    }
    expect(asked).toEqual(["llama3", "llama3"]);
    await real.close();
  }, 60_000);
});

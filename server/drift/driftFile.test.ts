import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { driftFile } from "./driftFile";
import type { DriftTokenizers } from "./driftTokenizers";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-drift-file-"));
function tempFile(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

/** The reference rollout-lens/v1 episode (Qwen3 ids) with its record naming `tokenizer`. */
function episodeNaming(tokenizer: string, id: string): string {
  const line = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "{}";
  return JSON.stringify({ ...JSON.parse(line), id, model: tokenizer, tokenizer });
}

let qwen: Tokenizer;
beforeAll(async () => {
  qwen = await loadTokenizer("qwen3");
}, 60_000);

/** Two catalog names that both load the real Qwen3 tokenizer: only the record can tell them apart. */
function twoNames(pool?: "failing"): DriftTokenizers {
  return {
    names: ["qwen3", "other"],
    fallback: "qwen3",
    load: async () => ({
      tokenizer: qwen,
      ...(pool === "failing"
        ? {
            pool: {
              check: () => Promise.reject(new Error("worker died")),
              close: async () => {},
            },
          }
        : {}),
    }),
    close: async () => {},
  };
}

describe("driftFile", () => {
  it("a later record naming another tokenizer than the file's is unchecked, with why", async () => {
    const path = tempFile("two-names.jsonl", [
      episodeNaming("qwen3", "a"),
      episodeNaming("other", "b"),
      episodeNaming("qwen3", "c"),
    ]);
    const file = await driftFile(path, { tokenizers: twoNames(), modes: ["roundtrip"] });
    expect(file.tokenizer).toEqual({ name: "qwen3", reason: "recorded" });
    expect(file.trajectories.map((t) => t.id)).toEqual(["a", "c"]);
    expect(file.unchecked).toEqual([
      {
        line: 2,
        row: 0,
        id: "b",
        reason:
          "tokenizer mismatch: the record names other, but the file is checked with qwen3 (chosen from its first trajectory)",
        modes: ["roundtrip"],
      },
    ]);
    // A pick overrides the records: every trajectory is checked with it.
    const picked = await driftFile(path, {
      tokenizers: twoNames(),
      picked: "qwen3",
      modes: ["roundtrip"],
    });
    expect(picked.tokenizer).toEqual({ name: "qwen3", reason: "picked" });
    expect(picked.unchecked).toEqual([]);
  });

  it("trajectories of a failed worker batch are unchecked, never counted as checked", async () => {
    const path = tempFile("pool-fails.jsonl", [episodeNaming("qwen3", "a")]);
    const file = await driftFile(path, { tokenizers: twoNames("failing"), modes: ["roundtrip"] });
    expect(file.readError).toBeUndefined();
    expect(file.trajectories).toEqual([]);
    expect(file.modes).toEqual([{ mode: "roundtrip", checked: 0, unchecked: 1, drifted: 0 }]);
    expect(file.unchecked).toEqual([
      { line: 1, row: 0, id: "a", reason: "cannot check drift: worker died", modes: ["roundtrip"] },
    ]);
  });
});

describe("driftFile streaming", () => {
  it("hands every checked trajectory over in file order, keeping none when asked, counts intact", async () => {
    const lines = Array.from({ length: 7 }, (_, k) => episodeNaming("qwen3", `ep${k}`));
    lines.splice(3, 0, "{not json");
    const path = tempFile("streamed.jsonl", lines);
    const engine = { tokenizer: qwen };
    const tokenizers: DriftTokenizers = {
      names: ["qwen3"],
      fallback: "qwen3",
      load: async () => engine,
      close: async () => {},
    };
    const whole = await driftFile(path, { tokenizers, modes: ["roundtrip"] });
    const seen: string[] = [];
    const streamed = await driftFile(path, {
      tokenizers,
      modes: ["roundtrip"],
      onChecked: (t) => seen.push(`${t.line} ${t.id}`),
      keep: () => false,
    });
    expect(seen).toEqual(whole.trajectories.map((t) => `${t.line} ${t.id}`));
    expect(seen).toHaveLength(7);
    expect(streamed.trajectories).toEqual([]);
    expect({ ...streamed, trajectories: whole.trajectories }).toEqual(whole);
    expect(whole.checked).toBe(7);
    expect(whole.drifted).toBe(
      whole.trajectories.filter((t) => t.results.some((r) => r.firstDivergenceIndex !== undefined))
        .length,
    );
  });

  it("with a pool, hands trajectories over in file order as batches finish out of order", async () => {
    const lines = Array.from({ length: 300 }, (_, k) => episodeNaming("qwen3", `ep${k}`));
    const path = tempFile("pooled.jsonl", lines);
    let calls = 0;
    const tokenizers: DriftTokenizers = {
      names: ["qwen3"],
      fallback: "qwen3",
      load: async () => ({
        tokenizer: qwen,
        pool: {
          // The first batch finishes last.
          check: async (ts) => {
            const delay = calls++ === 0 ? 50 : 0;
            await new Promise((done) => setTimeout(done, delay));
            return ts.map(() => ({ results: [], unchecked: [] }));
          },
          close: async () => {},
        },
      }),
      close: async () => {},
    };
    const seen: number[] = [];
    const file = await driftFile(path, {
      tokenizers,
      modes: ["roundtrip"],
      onChecked: (t) => seen.push(t.line),
      keep: () => false,
    });
    expect(calls).toBe(3);
    expect(seen).toEqual(lines.map((_, k) => k + 1));
    expect(file.checked).toBe(300);
  });
});

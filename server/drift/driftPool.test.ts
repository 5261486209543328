import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import { driftFile } from "./driftFile";
import { createDriftPool, type DriftPool } from "./driftPool";
import { driftExitCode, humanReport } from "./driftReport";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-drift-pool-"));

let tokenizer: Tokenizer;
let pool: DriftPool;
beforeAll(async () => {
  tokenizer = await loadDriftTokenizer("qwen3");
  pool = createDriftPool("qwen3", 2);
}, 60_000);
afterAll(() => pool.close());

describe("drift on worker threads (--jobs 2)", () => {
  it("ends with exit 2 and the reason, within seconds, when a worker is killed mid-scan", async () => {
    const lines = fixtureLines("reference-slime.jsonl").filter((l) => l.trim() !== "");
    const path = join(dir, "many.jsonl");
    writeFileSync(
      path,
      `${Array.from({ length: 1500 }, (_, k) => lines[k % lines.length]).join("\n")}\n`,
    );
    let calls = 0;
    const killing: DriftPool = {
      check: (trajectories, modes, label) => {
        const result = pool.check(trajectories, modes, label);
        // The second batch is on its way: kill a busy worker as a crash or the OOM killer would.
        if (++calls === 2) setTimeout(() => void pool.kill?.(), 20);
        return result;
      },
      close: () => pool.close(),
    };
    const started = Date.now();
    const file = await driftFile(path, {
      tokenizers: {
        names: ["qwen3"],
        fallback: "qwen3",
        load: async () => ({ tokenizer, pool: killing }),
        close: async () => {},
      },
      modes: ["roundtrip"],
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(file.readError).toMatch(
      new RegExp(`^drift worker exited \\(code 1\\) while reading ${path} lines \\d+–\\d+$`),
    );
    expect(driftExitCode([file])).toBe(2);
    expect(humanReport(file)).toEqual([`${path}: cannot read: ${file.readError}`]);
    // The pool replaced the worker: the next file is checked.
    const one = join(dir, "one.jsonl");
    writeFileSync(one, `${lines.slice(0, 200).join("\n")}\n`);
    const next = await driftFile(one, {
      tokenizers: {
        names: ["qwen3"],
        fallback: "qwen3",
        load: async () => ({ tokenizer, pool }),
        close: async () => {},
      },
      modes: ["roundtrip"],
    });
    expect(next.readError).toBeUndefined();
    expect(next.checked).toBeGreaterThan(0);
  }, 60_000);
});

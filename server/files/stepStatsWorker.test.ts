import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { chunkBeyondEnd, claimingRows } from "../../src/test/parquetDamage";
import { primeRolloutParquet } from "../../src/test/parquetFixtures";
import { createStepStatsWorker } from "./stepStatsWorker";

const dir = mkdtempSync(join(tmpdir(), "rl-step-workers-"));
const worker = createStepStatsWorker();
afterAll(() => worker.close());

describe("step statistics on worker threads", () => {
  it("fails each damaged Parquet file alone, with its row group and column, and computes the others", async () => {
    const looping = join(dir, "step_1.parquet");
    copyFileSync(
      new URL("../../test-support/fuzz/regressions/parquet-byte-230.parquet", import.meta.url),
      looping,
    );
    const lying = join(dir, "step_2.parquet");
    writeFileSync(lying, new Uint8Array(claimingRows(primeRolloutParquet(3), 1e9)));
    const cut = join(dir, "step_3.parquet");
    writeFileSync(cut, new Uint8Array(chunkBeyondEnd(primeRolloutParquet(3), 1000)));
    const good = join(dir, "step_4.jsonl");
    writeFileSync(good, `${fixtureLines("reference-nemo-rl.jsonl").join("\n")}\n`);
    const goodParquet = join(dir, "step_5.parquet");
    writeFileSync(goodParquet, new Uint8Array(primeRolloutParquet(2)));
    const started = Date.now();
    const settled = await Promise.allSettled(
      [looping, lying, cut, good, goodParquet].map((p) => worker.compute(p)),
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    const reasons = settled.map((s) => (s.status === "rejected" ? String(s.reason.message) : "ok"));
    expect(reasons[0]).toMatch(
      /^row group 1 \(rows 3–3\), column "target_lengths", page at byte 1125: /,
    );
    expect(reasons[1]).toMatch(
      /^the footer declares 1000000000 rows, more than a \d+-byte file can hold$/,
    );
    expect(reasons[2]).toMatch(
      /^row group 0 \(rows 1–3\), column "seed": its data .* lies outside/,
    );
    expect(reasons.slice(3)).toEqual(["ok", "ok"]);
  }, 90_000);
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import { withLane } from "../../src/core/trajectory/lanes";
import { modelSegment, promptSegment, trajectory } from "../../src/test/trajectoryBuilders";
import { runCli } from "../../test-support/runCli";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-replays-"));

/** Two members of group g (rewards 1, 0: GRPO advantages +1, −1), sampled at 0.5 everywhere. */
function member(id: string, reward: number, trainer: readonly number[]) {
  const t = trajectory(
    [promptSegment([1, 2]), modelSegment([3, 4], 1, { logprobs: [Math.log(0.5), Math.log(0.5)] })],
    { id, reward, group: "g" },
  );
  return withLane(t, "trainer", [null, null, ...trainer.map(Math.log)]);
}

const replayFile = join(dir, "group.jsonl");
writeFileSync(
  replayFile,
  `${[member("a", 1, [0.9, 0.05]), member("b", 0, [0.45, 0.5])]
    .map((t) => stringifyJsonLine(writeRolloutLens(t)))
    .join("\n")}\n`,
);

describe("mismatch --correction NAME,NAME…", () => {
  it("replays each over the file: fraction masked, ESS and rows dropped, computed by hand", async () => {
    const { code, out } = await runCli([
      "mismatch",
      replayFile,
      "--json",
      "--correction",
      "icepop,opsm,token-trunc",
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.correction.kind).toBe("token-trunc");
    const [icepop, opsm, tis] = report.files[0].replays;
    // r = 1.8, 0.1 | 0.9, 1: IcePop [0.5, 5] masks 0.1; ESS = 3.7² / (4·(1.8² + 0.9² + 1))
    expect(icepop.name).toBe("icepop");
    expect(icepop.fractionMasked).toBe(0.25);
    expect(icepop.ess).toBeCloseTo(3.7 ** 2 / (4 * (3.24 + 0.81 + 1)), 12);
    expect(icepop.rowsDropped).toEqual([]);
    // Row b: A = −1 (GRPO from rewards 1, 0), mean(log 0.5 − log π_θ) = ln(0.5/0.45)/2 > 1e-4
    expect(opsm.fractionMasked).toBe(0.5);
    expect(opsm.rowsDropped).toEqual([1]);
    expect(opsm.ess).toBeCloseTo(1.9 ** 2 / (4 * (3.24 + 0.01)), 12);
    // TIS C = 2 clips nothing (largest r is 1.8)
    expect(tis.fractionClipped).toBe(0);
  });

  it("replays nothing without --correction (no row is kept), and token-trunc when it is named", async () => {
    const plain = await runCli(["mismatch", replayFile, "--json"]);
    expect(plain.code).toBe(0);
    const report = JSON.parse(plain.out);
    expect(report.correction.kind).toBe("token-trunc");
    expect(report.files[0].summary.compared).toBe(4);
    expect(report.files[0].replays).toEqual([]);
    expect((await runCli(["mismatch", replayFile])).out).not.toMatch(/corrections replayed/);
    const named = await runCli(["mismatch", replayFile, "--json", "--correction", "token-trunc"]);
    expect(JSON.parse(named.out).files[0].replays.map((r: { name: string }) => r.name)).toEqual([
      "token-trunc",
    ]);
  });

  it("takes each correction's thresholds as options, and prints them in text", async () => {
    const { code, out } = await runCli([
      "mismatch",
      replayFile,
      "--correction",
      "icepop",
      "--icepop-alpha",
      "0.05",
    ]);
    expect(code).toBe(0);
    expect(out).toContain("icepop (alpha 0.05, beta 5): masked 0.00%, clipped 0.00%");
    expect(out).toContain("rows dropped none");
  });

  it("counts a row without an advantage as unchecked, never as kept, and exits 2", async () => {
    const lone = join(dir, "lone.jsonl");
    const t = member("lone", 1, [0.45, 0.5]);
    writeFileSync(lone, `${stringifyJsonLine(writeRolloutLens({ ...t, group: undefined }))}\n`);
    const text = await runCli(["mismatch", lone, "--correction", "opsm,icepop"]);
    expect(text.code).toBe(2);
    expect(text.out).toContain(
      "opsm (delta 0.0001): masked 0.00%, clipped 0.00%, ESS 0.000, rows dropped none, unchecked 2 tokens of 1 rows (no advantage)",
    );
    const json = JSON.parse(
      (await runCli(["mismatch", lone, "--json", "--correction", "opsm"])).out,
    );
    expect(json.files[0].replays[0]).toMatchObject({ unchecked: 2, kept: 0, rowsUnchecked: [0] });
  });

  it("refuses an unknown name or a threshold that is not a number (exit 2)", async () => {
    const bad = await runCli(["mismatch", replayFile, "--correction", "icepop,nope"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown correction "nope"/);
    const nan = await runCli(["mismatch", replayFile, "--correction", "m2po", "--m2po-tau", "x"]);
    expect(nan.code).toBe(2);
    expect(nan.err).toContain('--m2po-tau: expected a number, got "x"');
  });

  it("documents every threshold in --help", async () => {
    const { out } = await runCli(["mismatch", "--help"]);
    for (const flag of ["--icepop-beta", "--trm-k1-veto-k2", "--opsm-delta", "--sapo-tau-neg"]) {
      expect(out).toContain(flag);
    }
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import { computeMismatch, correction } from "../../src/core/mismatch/mismatch";
import { sampledLane, withLane } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { modelSegment, promptSegment } from "../../src/test/trajectoryBuilders";
import { runCli } from "../../test-support/runCli";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-mismatch-"));

function read(line: string): Trajectory[] {
  const result = readRolloutLine(line, 1);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  return result.trajectories;
}

const base = read(fixtureLines("reference-rollout-lens.jsonl")[0] ?? "")[0] as Trajectory;
const sampled = sampledLane(base);
const trainers = [0.05, 0.9, -1.2].map((shift, j) =>
  sampled.map((v, k) => (v === null ? null : v + shift * Math.sin(k + j))),
);
const file = join(dir, "lanes.jsonl");
writeFileSync(
  file,
  `${trainers
    .map((lane, j) =>
      stringifyJsonLine(writeRolloutLens(withLane({ ...base, id: `t${j}` }, "trainer", lane))),
    )
    .join("\n")}\n`,
);
const mask = base.segments.flatMap((s) => [...s.lossMask]);

describe("rollout-lens mismatch", () => {
  it("--json agrees with a direct computation, per trajectory and file", async () => {
    const { code, out } = await runCli([
      "mismatch",
      file,
      "--json",
      "--lanes",
      "trainer,sampled",
      "--correction",
      "token-mask",
      "--cap",
      "1.5",
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    const c = correction("token-mask", { cap: 1.5 });
    expect(report.correction).toEqual(c);
    const [fileReport] = report.files;
    expect(fileReport.trajectories.map((t: { id: string }) => t.id)).toEqual(["t0", "t1", "t2"]);
    let masked = 0;
    let compared = 0;
    for (const [j, lane] of trainers.entries()) {
      const direct = computeMismatch({ a: lane, b: sampled, mask, segmentEnds: ends() }, c).stats;
      expect(fileReport.trajectories[j].stats).toEqual(JSON.parse(JSON.stringify(direct)));
      masked += direct.masked;
      compared += direct.compared;
    }
    expect(fileReport.summary.masked).toBe(masked);
    expect(fileReport.summary.fractionCorrected).toBeCloseTo(masked / compared, 12);
    expect(masked).toBeGreaterThan(0);
  });

  it("prints text, and --fail-above decides the exit code", async () => {
    const text = await runCli(["mismatch", file, "--correction", "geo"]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("correction geo-mask (cap 2");
    expect(text.out).toMatch(/ {2}t1 \(line 2, trainer vs sampled\): \d+ tokens, mean\|δ\| /);
    expect(
      (await runCli(["mismatch", file, "--correction", "token-mask", "--fail-above", "0"])).code,
    ).toBe(1);
    expect((await runCli(["mismatch", file, "--fail-above", "0.99"])).code).toBe(0);
  });

  it("reads the reference lane of an atropos file by default", async () => {
    const group = JSON.parse(fixtureLines("reference-atropos.jsonl")[0] ?? "{}");
    const refs = (group.tokens as number[][]).map((row) => row.map(() => -0.5));
    const path = join(dir, "atropos.jsonl");
    writeFileSync(path, `${JSON.stringify({ ...group, ref_logprobs: refs })}\n`);
    const { code, out } = await runCli(["mismatch", path, "--json"]);
    expect(code).toBe(0);
    const t = JSON.parse(out).files[0].trajectories[0];
    expect(t.lanes).toEqual(["reference", "sampled"]);
    expect(t.stats.compared).toBe(2);
  });

  it("--json carries the file's histogram and worst tokens, as computed directly", async () => {
    // A NeMo-RL dump: prev_logprobs (trainer) against generation_logprobs (sampled).
    const nemo = fixtureLines("reference-nemo-rl.jsonl").map((l) => JSON.parse(l));
    const path = join(dir, "train_data_step3.jsonl");
    writeFileSync(path, `${nemo.map((v) => JSON.stringify(v)).join("\n")}\n`);
    const { code, out } = await runCli(["mismatch", path, "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(out).files[0];
    expect(report.format).toBe("nemo-rl");
    const direct: { row: number; line: number; token: number; delta: number }[] = [];
    nemo.forEach((v, row) => {
      const [mask] = v.token_loss_mask as number[][];
      const [gen] = v.generation_logprobs as number[][];
      const [prev] = v.prev_logprobs as number[][];
      const n = (v.input_lengths as number[])[0] ?? 0;
      for (let k = 0; k < n; k++) {
        if (mask?.[k] !== 1) continue;
        direct.push({ row, line: row + 1, token: k, delta: (prev?.[k] ?? 0) - (gen?.[k] ?? 0) });
      }
    });
    expect(report.charts.compared).toBe(direct.length);
    const bins = new Map<number, number>();
    for (const d of direct) {
      const bin = Math.floor((Math.log10(Math.exp(d.delta)) + 1.5) / 0.025);
      bins.set(bin, (bins.get(bin) ?? 0) + 1);
    }
    const nonEmpty = (report.charts.histogram as number[])
      .map((count, bin) => [bin, count])
      .filter(([, count]) => (count ?? 0) > 0);
    expect(nonEmpty).toEqual([...bins.entries()].sort((x, y) => x[0] - y[0]));
    const worst = [...direct].sort(
      (x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.row - y.row || x.token - y.token,
    );
    expect(
      report.charts.worst.map((t: { row: number; line: number; token: number }) => [
        t.row,
        t.line,
        t.token,
      ]),
    ).toEqual(worst.map((t) => [t.row, t.line, t.token]));
    report.charts.worst.forEach((t: { delta: number }, i: number) => {
      expect(t.delta).toBeCloseTo(worst[i]?.delta ?? Number.NaN, 12);
    });
  });

  it("exits 2 when no trajectory has the lanes, or a flag is wrong", async () => {
    const plain = join(dir, "plain.jsonl");
    writeFileSync(plain, `${fixtureLines("reference-rollout-lens.jsonl")[0]}\n`);
    const none = await runCli(["mismatch", plain]);
    expect(none.code).toBe(2);
    expect(none.out).toMatch(/ {2}1 skipped \(\S+ line 1\): no lane besides sampled/);
    // Real atropos rows without inference logprobs: per-token scores are never a default lane,
    // negative (a zero-variance group's) or not, and the row says it has no logprobs at all.
    const rubiks = join(dir, "rubiks.jsonl");
    writeFileSync(rubiks, `${fixtureLines("atropos-rubiks-trimmed.jsonl").join("\n")}\n`);
    const scores = await runCli(["mismatch", rubiks]);
    expect(scores.code).toBe(2);
    // Skipped rows are grouped by reason in the text, the first few named; --json lists each.
    const rows = fixtureLines("atropos-rubiks-trimmed.jsonl").length;
    expect(scores.out).toMatch(
      /\n {2}(\d+) skipped \(L1\.0 line 1, .*L2\.0 line 2.*\): no logprobs at all: no sampled \(inference\) logprobs and no other lane\n/,
    );
    expect(scores.out.match(/ skipped \(/g)).toHaveLength(1);
    const json = JSON.parse((await runCli(["mismatch", rubiks, "--json"])).out);
    expect(json.files[0].skipped.length).toBeGreaterThanOrEqual(rows);
    expect(scores.out).not.toContain("token_scores");
    expect(scores.out).toContain("nothing compared: no trained token has a logprob in both lanes");
    expect((await runCli(["mismatch", file, "--correction", "nope"])).code).toBe(2);
    expect((await runCli(["mismatch", file, "--lanes", "trainer"])).code).toBe(2);
  });

  it("counts a row whose lanes share no trained token as not compared (exit 2), never as clean", async () => {
    const empty = sampled.map((v, k) => (mask[k] === 1 ? null : v));
    const mixed = join(dir, "mixed.jsonl");
    const rows = [
      withLane({ ...base, id: "good" }, "trainer", trainers[0] ?? []),
      withLane({ ...base, id: "empty" }, "trainer", empty),
    ];
    writeFileSync(mixed, `${rows.map((t) => stringifyJsonLine(writeRolloutLens(t))).join("\n")}\n`);
    const json = await runCli(["mismatch", mixed, "--json"]);
    expect(json.code).toBe(2);
    const [report] = JSON.parse(json.out).files;
    expect(report.trajectories.map((t: { id: string }) => t.id)).toEqual(["good"]);
    expect(report.unchecked).toBe(1);
    expect(report.skipped).toEqual([
      {
        id: "empty",
        line: 2,
        reason: "nothing compared: no trained token has a logprob in both trainer and sampled",
      },
    ]);
    const text = await runCli(["mismatch", mixed]);
    expect(text.code).toBe(2);
    expect(text.out).toContain("  1 skipped (empty line 2): nothing compared");
  });
});

function ends(): number[] {
  const out: number[] = [];
  let n = 0;
  for (const s of base.segments) {
    n += s.tokenIds.length;
    out.push(n);
  }
  return out;
}

describe("rollout-lens mismatch: the decomposition", () => {
  // One row sampled at T = 0.5 over two candidates (p_1 = 0.8, 0.2), rescored at T = 1: the
  // temperature term is log p_1 − log p_0.5 of the token, the residual what is left.
  const p1 = [0.8, 0.2];
  const pHalf = [0.64 / 0.68, 0.04 / 0.68];
  const top = p1.map((_, j) => ({ tokenId: 10 + j, logprob: Math.log(pHalf[j] ?? 0) }));
  const t: Trajectory = {
    id: "d",
    source: { kind: "file" },
    format: "rollout-lens/v1",
    status: "completed",
    samplingParams: { temperature: 0.5 },
    segments: [
      promptSegment([1]),
      modelSegment([10, 10], 1, {
        logprobs: [Math.log(pHalf[0] ?? 0), Math.log(pHalf[0] ?? 0)],
        topLogprobs: [top, top],
      }),
    ],
    logprobLanes: { rescored: [null, Math.log(0.8), Math.log(0.8) - 0.5] },
    metadata: {},
  };
  const path = join(dir, "decomposed.jsonl");
  writeFileSync(path, `${stringifyJsonLine(writeRolloutLens(t))}\n`);

  it("--json gives each row's verdict and the file's counts; the text says where it comes from", async () => {
    const { code, out } = await runCli(["mismatch", path, "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    const f = report.files[0];
    const row = f.trajectories[0].decomposition;
    const temperature = Math.log(0.8) - Math.log(pHalf[0] ?? 0);
    expect(row.verdict).toBe("real");
    expect(row.known).toBe(2);
    expect(row.meanAbsTemperature).toBeCloseTo(Math.abs(temperature), 12);
    expect(row.meanAbsResidual).toBeCloseTo(0.25, 12);
    expect(f.charts.decomposition.rows).toEqual({ none: 0, spurious: 0, real: 1, unchecked: 0 });
    const text = await runCli(["mismatch", path]);
    expect(text.out).toContain("0 rows spurious (temperature/support), 1 real");
  });
});

import { describe, expect, it } from "vitest";
import { stringifyJsonLine } from "../formats/jsonLine";
import { writeRolloutLens } from "../formats/rolloutLens";
import { seededRandom } from "../random";
import type { Trajectory } from "../trajectory/types";
import { trajectoryDecomposition, unknownRowCounts } from "./decompositionInputs";
import {
  createFileMismatchScan,
  finishCharts,
  mergeCharts,
  positionBucket,
  scanMismatchLine,
} from "./fileMismatch";

/**
 * Rows sampled at T = 0.5 from a 4-token distribution with top_p = 0.7 and renormalised over the
 * kept set (slime's fields), a rescored lane at T = 1 with noise; some rows without top-k.
 */
function rows(count: number): Trajectory[] {
  const rand = seededRandom(5);
  return Array.from({ length: count }, (_, r) => {
    const n = 3 + Math.floor(rand() * 6);
    const ids: number[] = [];
    const sampled: number[] = [];
    const rescored: (number | null)[] = [null, null];
    const tops: { tokenId: number; logprob: number }[][] = [];
    const keptIds: number[] = [];
    const offsets = [0];
    for (let k = 0; k < n; k++) {
      const z = [0, -rand() * 2, -1 - rand() * 2, -3 - rand()];
      const lse = (t: number) => Math.log(z.reduce((s, v) => s + Math.exp(v / t), 0));
      const atHalf = z.map((v) => v / 0.5 - lse(0.5));
      const id = 100 + k * 10;
      const top = atHalf.map((lp, j) => ({ tokenId: id + j, logprob: lp }));
      // top_p 0.7 over the sorted p_0.5: the mass before each token.
      let before = 0;
      const kept = top.filter((e) => {
        const keep = before <= 0.7;
        before += Math.exp(e.logprob);
        return keep;
      });
      const mass = Math.log(kept.reduce((s, e) => s + Math.exp(e.logprob), 0));
      ids.push(id);
      sampled.push(Math.min(0, (atHalf[0] ?? 0) - mass));
      rescored.push(Math.min(-1e-6, (z[0] ?? 0) - lse(1) + (rand() - 0.5) * 0.3));
      tops.push(top);
      keptIds.push(...kept.map((e) => e.tokenId));
      offsets.push(keptIds.length);
    }
    const hasTop = r % 4 !== 3;
    return {
      id: `r${r}`,
      source: { kind: "file" },
      format: "rollout-lens/v1",
      status: "completed",
      samplingParams: { temperature: 0.5, top_p: 0.7 },
      segments: [
        { kind: "prompt", turn: 0, tokenIds: [1, 2], lossMask: [0, 0], logprobs: [null, null] },
        {
          kind: "model",
          turn: 1,
          tokenIds: ids,
          lossMask: ids.map(() => 1),
          logprobs: sampled,
          ...(hasTop ? { topLogprobs: tops } : {}),
        },
      ],
      logprobLanes: { rescored },
      metadata: { rollout_top_p_token_ids: keptIds, rollout_top_p_token_offsets: offsets },
    } satisfies Trajectory;
  });
}

function scan(lines: readonly string[], first: number) {
  const s = createFileMismatchScan();
  lines.forEach((text, i) => {
    scanMismatchLine(s, text, first + i + 1, first, {});
  });
  return s;
}

describe("the decomposition in the file scan", () => {
  const trajectories = rows(24);
  const lines = trajectories.map((t) => stringifyJsonLine(writeRolloutLens(t)));

  it("counts each row's verdict and sums its known terms, by position too", () => {
    const s = scan(lines, 0);
    expect(s.badLines).toBe(0);
    expect(s.rows).toHaveLength(24);
    const charts = finishCharts(s.charts).decomposition;
    if (!charts) throw new Error("no decomposition");
    const verdicts = { none: 0, spurious: 0, real: 0, unchecked: 0 };
    let known = 0;
    let sumT = 0;
    let sumR = 0;
    const byBucket = new Map<number, number>();
    trajectories.forEach((t, r) => {
      const d = trajectoryDecomposition(t, ["rescored", "sampled"]);
      if (!d.ok) throw new Error(d.message);
      verdicts[d.result.summary.verdict]++;
      expect(s.rows[r]?.decomposition?.verdict).toBe(d.result.summary.verdict);
      d.result.residual.forEach((res, k) => {
        if (Number.isNaN(res)) return;
        known++;
        sumT += Math.abs(d.result.temperature[k] ?? 0);
        sumR += Math.abs(res);
        byBucket.set(positionBucket(k), (byBucket.get(positionBucket(k)) ?? 0) + 1);
      });
    });
    expect(charts.rows).toEqual(verdicts);
    expect(verdicts.unchecked).toBe(6);
    expect(verdicts.spurious + verdicts.real).toBe(18);
    expect(charts.known).toBe(known);
    expect(charts.sumAbsTemperature).toBeCloseTo(sumT, 9);
    expect(charts.sumAbsResidual).toBeCloseTo(sumR, 9);
    charts.byPosition.forEach((b, i) => {
      expect(b.known).toBe(byBucket.get(i) ?? 0);
    });
  });

  it("counts a row without a temperature as the full decomposition does, without walking it", () => {
    const cases: Trajectory[] = trajectories.slice(0, 4).flatMap((t) => [
      { ...t, samplingParams: { top_p: 0.7 } },
      { ...t, samplingParams: {}, metadata: {} },
      { ...t, samplingParams: undefined, metadata: {} },
    ]);
    for (const t of cases) {
      for (const lanes of [
        ["rescored", "sampled"],
        ["trainer", "sampled"],
      ] as const) {
        const full = trajectoryDecomposition(
          { ...t, logprobLanes: { ...t.logprobLanes, trainer: t.logprobLanes?.rescored ?? [] } },
          lanes,
        );
        if (!full.ok) throw new Error(full.message);
        const s = full.result.summary;
        expect(unknownRowCounts(t, lanes, s.compared)).toEqual({
          unknownTemperature: s.unknownTemperature,
          unknownSupport: s.unknownSupport,
        });
      }
    }
    const known = trajectories[0] as Trajectory;
    expect(unknownRowCounts(known, ["rescored", "sampled"], 5)).toBeUndefined();
  });

  it("merges two halves into the counts of one scan", () => {
    const whole = finishCharts(scan(lines, 0).charts).decomposition;
    const a = scan(lines.slice(0, 10), 0).charts;
    const b = scan(lines.slice(10), 10).charts;
    const merged = mergeCharts(a, b).decomposition;
    expect(merged?.rows).toEqual(whole?.rows);
    expect(merged?.known).toBe(whole?.known);
    expect(merged?.outsideResidual).toBe(whole?.outsideResidual);
    expect(merged?.sumAbsSupport).toBeCloseTo(whole?.sumAbsSupport ?? Number.NaN, 9);
    expect(merged?.byPosition.map((x) => x.known)).toEqual(whole?.byPosition.map((x) => x.known));
  });
});

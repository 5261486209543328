import { describe, expect, it } from "vitest";
import { seededRandom } from "../random";
import { withLane } from "../trajectory/lanes";
import type { Segment, Trajectory } from "../trajectory/types";
import { emptyCharts, mismatchIntoCharts } from "./fileMismatch";
import {
  CORRECTION_KINDS,
  type Correction,
  computeMismatch,
  correction,
  isCorrected,
  type MismatchInput,
  SAFETY_BOUND,
  safeExp,
  sequenceWeight,
} from "./mismatch";
import { trajectoryMismatch } from "./trajectoryMismatch";

/*
 * computeMismatch and the file scan's statistics (both comparedStats, one pass over the compared
 * tokens) against the two passes they replace, written here as they were: compare the lanes
 * token by token, then replay the correction per segment. Same additions in the same order, so
 * every number must be equal (Object.is), not close.
 */

interface Reference {
  stats: Record<string, unknown>;
  delta: number[];
  cumDelta: number[];
  weight: number[];
  verdict: number[];
}

/** The first pass: δ, Σδ and the sums, token by token. */
function comparePass({ a, b, mask }: MismatchInput) {
  const n = a.length;
  const delta = new Array<number>(n).fill(Number.NaN);
  const cumDelta = new Array<number>(n).fill(0);
  const weight = new Array<number>(n).fill(Number.NaN);
  const s = { compared: 0, missing: 0, sum: 0, sumAbs: 0, maxAbs: 0, maxAt: -1, sumDp: 0 };
  const e = { k1: 0, k2: 0, k3: 0, rSum: 0, rSumSq: 0 };
  for (let k = 0; k < n; k++) {
    cumDelta[k] = s.sum;
    if (mask && mask[k] !== 1) continue;
    const x = a[k];
    const y = b[k];
    const d = x === null || y === null || x === undefined || y === undefined ? Number.NaN : x - y;
    if (!Number.isFinite(d)) {
      s.missing += 1;
      continue;
    }
    const [xv, yv] = [x as number, y as number];
    s.compared += 1;
    delta[k] = d;
    s.sum += d;
    cumDelta[k] = s.sum;
    if (Math.abs(d) > s.maxAbs || s.maxAt < 0) [s.maxAbs, s.maxAt] = [Math.abs(d), k];
    s.sumAbs += Math.abs(d);
    const r = safeExp(d);
    s.sumDp +=
      Math.abs(d) < SAFETY_BOUND
        ? Math.exp(yv) * Math.abs(r - 1)
        : Math.abs(Math.exp(xv) - Math.exp(yv));
    weight[k] = r;
    e.k1 -= d;
    e.k2 += (d * d) / 2;
    e.k3 += r - 1 - d;
    e.rSum += r;
    e.rSumSq += r * r;
  }
  return { delta, cumDelta, weight, s, e };
}

/** The second pass: the correction replayed segment by segment over the compared tokens. */
function replayPass(input: MismatchInput, c: Correction, pass: ReturnType<typeof comparePass>) {
  const { delta, weight, s } = pass;
  const n = delta.length;
  const ends = input.segmentEnds ?? [n];
  const verdict = new Array<number>(n).fill(0);
  const segments = ends.map(() => ({ compared: 0, clipped: 0, masked: 0 }));
  const rho = sequenceWeight(c, s.sum, s.compared);
  const isTrunc = c.kind === "token-trunc" || c.kind === "seq-trunc";
  const w = { clipped: 0, masked: 0, wSum: 0, wSumSq: 0 };
  let from = 0;
  const spans = Math.max(1, segments.length);
  for (let g = 0; g < spans; g++) {
    const to = g === spans - 1 ? n : Math.min(n, ends[g] ?? n);
    for (let k = from; k < to; k++) {
      if (Number.isNaN(delta[k])) continue;
      const r = c.kind.startsWith("token") ? (weight[k] as number) : rho;
      const corrected = isCorrected(c, r);
      const v = !corrected ? 1 : isTrunc ? 2 : 3;
      weight[k] = isTrunc ? (r < c.cap ? r : c.cap) : corrected ? 0 : r;
      verdict[k] = v;
      w.wSum += weight[k] as number;
      w.wSumSq += (weight[k] as number) * (weight[k] as number);
      const seg = segments[g];
      if (seg) {
        seg.compared += 1;
        if (v === 2) seg.clipped += 1;
        if (v === 3) seg.masked += 1;
      }
      if (v === 2) w.clipped += 1;
      if (v === 3) w.masked += 1;
    }
    from = Math.max(from, to);
  }
  return { verdict, segments, w };
}

function reference(input: MismatchInput, c: Correction): Reference {
  const pass = comparePass(input);
  const { s, e } = pass;
  const { verdict, segments, w } = replayPass(input, c, pass);
  const mean = (x: number) => (s.compared === 0 ? 0 : x / s.compared);
  const ess = (sum: number, sq: number) =>
    s.compared === 0 || sq === 0 ? 0 : (sum * sum) / (s.compared * sq);
  const stats = {
    compared: s.compared,
    missing: s.missing,
    meanAbsDelta: mean(s.sumAbs),
    maxAbsDelta: s.maxAbs,
    maxAt: s.maxAt,
    meanAbsDp: mean(s.sumDp),
    k1: mean(e.k1),
    k2: mean(e.k2),
    k3: mean(e.k3),
    sumDelta: s.sum,
    ess: ess(e.rSum, e.rSumSq),
    essCorrected: ess(w.wSum, w.wSumSq),
    clipped: w.clipped,
    masked: w.masked,
    fractionCorrected: s.compared === 0 ? 0 : (w.clipped + w.masked) / s.compared,
    segments,
  };
  return { stats, delta: pass.delta, cumDelta: pass.cumDelta, weight: pass.weight, verdict };
}

/** Every field equal by Object.is (so 0 and −0, NaN and NaN), in the same key order. */
function expectIdentical(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected !== "object" || expected === null) {
    if (!Object.is(actual, expected))
      expect({ where, actual }).toEqual({ where, actual: expected });
    return;
  }
  const keys = Object.keys(expected);
  expect(Object.keys(actual as object), where).toEqual(keys);
  for (const key of keys) {
    const at = (o: unknown) => (o as Record<string, unknown>)[key];
    expectIdentical(at(actual), at(expected), `${where}.${key}`);
  }
}

const CORRECTIONS: Correction[] = CORRECTION_KINDS.flatMap((kind) => [
  correction(kind),
  correction(kind, { cap: 1.05, lo: 0.97 }),
]);

/** Lanes with nulls, infinities, big and equal values, a mask with gaps and odd segment ends. */
function hostileInput(seed: number): MismatchInput {
  const rand = seededRandom(seed);
  const n = 1 + Math.floor(rand() * 300);
  const pick = (lp: number) => {
    const u = rand();
    if (u < 0.04) return null;
    if (u < 0.06) return Number.NEGATIVE_INFINITY;
    if (u < 0.08) return lp - 30 * rand();
    if (u < 0.1) return lp;
    return lp + (rand() - 0.5) * (seed % 3 === 0 ? 4 : 0.2);
  };
  const b = Array.from({ length: n }, () => (rand() < 0.05 ? null : -rand() * 8));
  const a = b.map((lp) => pick(lp ?? -1));
  const mask = Array.from({ length: n }, () => (rand() < 0.75 ? 1 : 0));
  const ends: number[] = [];
  for (let k = 0, count = Math.floor(rand() * 6); k < count; k++) {
    ends.push(Math.floor(rand() * (n + 20)));
  }
  if (seed % 2 === 0) ends.sort((p, q) => p - q);
  return {
    a,
    b,
    mask: seed % 5 === 0 ? undefined : mask,
    segmentEnds: seed % 7 ? ends : undefined,
  };
}

describe("comparedStats: one pass, bit for bit the two it replaces", () => {
  it("computeMismatch on hostile lanes, every correction, any segment ends", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = hostileInput(seed);
      for (const c of CORRECTIONS) {
        const want = reference(input, c);
        const got = computeMismatch(input, c);
        const where = `seed ${seed} ${c.kind} cap ${c.cap}`;
        expectIdentical(got.stats, want.stats, `${where} stats`);
        expectIdentical([...got.delta], want.delta, `${where} delta`);
        expectIdentical([...got.cumDelta], want.cumDelta, `${where} cumDelta`);
        expectIdentical([...got.weight], want.weight, `${where} weight`);
        expectIdentical([...got.verdict], want.verdict, `${where} verdict`);
      }
    }
  });

  it("the file scan's rows: the statistics trajectoryMismatch gives, from the tokens charted", () => {
    const charts = emptyCharts();
    let row = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const t = laneTrajectory(seed);
      const pairs: [string, string][] = [
        ["trainer", "sampled"],
        ["sampled", "trainer"],
        ["trainer", "reference"],
        ["sampled", "sampled"],
      ];
      for (const lanes of pairs) {
        for (const c of CORRECTIONS) {
          const want = trajectoryMismatch(t, lanes, c);
          const got = mismatchIntoCharts(charts, t, row++, seed, { lanes, correction: c });
          if (!want.ok || !got.ok) throw new Error(`seed ${seed}: lanes ${lanes} do not compare`);
          expectIdentical(got.stats, want.result.stats, `seed ${seed} ${lanes} ${c.kind}`);
        }
      }
    }
    expect(charts.compared).toBeGreaterThan(1000);
  });
});

/** A trajectory of prompt, model and tool segments with a `trainer` and a `reference` lane. */
function laneTrajectory(seed: number): Trajectory {
  const rand = seededRandom(seed * 31);
  const segments: Segment[] = [];
  for (let s = 0; s < 1 + Math.floor(rand() * 7); s++) {
    const kind = s === 0 ? "prompt" : s % 2 ? "model" : "tool";
    const length = Math.floor(rand() * 60);
    const isModel = kind === "model";
    segments.push({
      kind,
      turn: Math.ceil(s / 2),
      tokenIds: Array.from({ length }, (_, i) => i + s),
      lossMask: Array.from({ length }, () => (isModel ? 1 : 0)),
      logprobs: Array.from({ length }, () =>
        isModel && rand() > 0.05 ? -rand() * 6 : isModel ? null : null,
      ),
    });
  }
  const sampled = segments.flatMap((g) => g.logprobs);
  const noisy = (scale: number) =>
    sampled.map((v) => (v === null || rand() < 0.03 ? null : v + (rand() - 0.5) * scale));
  const t: Trajectory = {
    id: `t${seed}`,
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "completed",
    segments,
    metadata: {},
  };
  return withLane(withLane(t, "trainer", noisy(seed % 4 === 0 ? 3 : 0.1)), "reference", noisy(1));
}

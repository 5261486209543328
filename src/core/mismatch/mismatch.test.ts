import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../random";
import { withLane } from "../trajectory/lanes";
import type { Segment, Trajectory } from "../trajectory/types";
import {
  CORRECTION_KINDS,
  type Correction,
  type CorrectionKind,
  computeMismatch,
  correction,
  tokenMismatch,
  VERDICT,
} from "./mismatch";
import { aggregateMismatch, defaultLanes, trajectoryMismatch } from "./trajectoryMismatch";

/**
 * Reference implementation written straight from verl's formulas (rollout_corr_helper.py), one
 * trajectory at a time, with plain arrays: which tokens each correction clips or masks.
 */
function reference(
  a: readonly (number | null)[],
  b: readonly (number | null)[],
  mask: readonly number[],
  c: Correction,
): { clipped: number[]; masked: number[] } {
  const valid: number[] = [];
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    const y = b[k];
    if (mask[k] === 1 && typeof x === "number" && typeof y === "number") valid.push(k);
  }
  const logRatio = valid.map((k) => (a[k] as number) - (b[k] as number));
  const clamp = (v: number) => Math.max(-20, Math.min(20, v));
  const total = logRatio.reduce((s, v) => s + v, 0);
  const clipped: number[] = [];
  const masked: number[] = [];
  valid.forEach((k, i) => {
    const tokenWeight = Math.exp(clamp(logRatio[i] as number));
    const seqWeight = Math.exp(clamp(total));
    const geoWeight = Math.exp(clamp(valid.length ? total / valid.length : 0));
    if (c.kind === "token-trunc" && tokenWeight > c.cap) clipped.push(k);
    if (c.kind === "seq-trunc" && seqWeight > c.cap) clipped.push(k);
    const outside = (w: number) => !(w >= c.lo && w <= c.hi);
    if (c.kind === "token-mask" && outside(tokenWeight)) masked.push(k);
    if (c.kind === "seq-mask" && outside(seqWeight)) masked.push(k);
    if (c.kind === "geo-mask" && outside(geoWeight)) masked.push(k);
  });
  return { clipped, masked };
}

function randomCase(seed: number, n: number, spread: number) {
  const rand = seededRandom(seed);
  const b: (number | null)[] = [];
  const a: (number | null)[] = [];
  const mask: number[] = [];
  for (let k = 0; k < n; k++) {
    const lp = -rand() * 6;
    b.push(rand() < 0.05 ? null : lp);
    a.push(rand() < 0.05 ? null : lp + (rand() - 0.5) * spread);
    mask.push(rand() < 0.8 ? 1 : 0);
  }
  return { a, b, mask };
}

function indicesWith(verdict: Uint8Array, v: number): number[] {
  const out: number[] = [];
  verdict.forEach((x, k) => {
    if (x === v) out.push(k);
  });
  return out;
}

describe("mismatch statistics", () => {
  it("computes δ, r, |Δp| and the k1/k2/k3 estimators of a small case by hand", () => {
    const a = [null, -1, -2, -0.5];
    const b = [null, -1.5, -2, -0.1];
    const mask = [0, 1, 1, 1];
    const { stats, delta, cumDelta } = computeMismatch(
      { a, b, mask },
      correction("token-trunc", { cap: 1.5 }),
    );
    const ds = [0.5, 0, -0.4];
    expect(stats.compared).toBe(3);
    expect([...delta]).toEqual([Number.NaN, ...ds]);
    expect(stats.meanAbsDelta).toBeCloseTo(0.3, 12);
    expect(stats.maxAbsDelta).toBe(0.5);
    expect(stats.maxAt).toBe(1);
    expect(stats.k1).toBeCloseTo(-(0.5 + 0 - 0.4) / 3, 12);
    expect(stats.k2).toBeCloseTo((0.25 + 0 + 0.16) / 2 / 3, 12);
    const k3 = ds.reduce((s, d) => s + Math.exp(d) - 1 - d, 0) / 3;
    expect(stats.k3).toBeCloseTo(k3, 12);
    const dp =
      (Math.abs(Math.exp(-1) - Math.exp(-1.5)) + 0 + Math.abs(Math.exp(-0.5) - Math.exp(-0.1))) / 3;
    expect(stats.meanAbsDp).toBeCloseTo(dp, 12);
    expect(stats.sumDelta).toBeCloseTo(0.1, 12);
    expect(cumDelta[3]).toBeCloseTo(0.1, 12);
    // exp(0.5) = 1.65 > 1.5: clipped; the others are not.
    expect(stats.clipped).toBe(1);
    const rs = ds.map(Math.exp);
    const ess = rs.reduce((s, r) => s + r, 0) ** 2 / (3 * rs.reduce((s, r) => s + r * r, 0));
    expect(stats.ess).toBeCloseTo(ess, 12);
  });

  it("tokenMismatch gives one token's δ, r, |Δp|, k3 as the trajectory pass sums them", () => {
    const a = [-0.2, -1.7, null, -3];
    const b = [-0.5, -1.1, -2, -3];
    const { stats, delta } = computeMismatch({ a, b }, correction("token-trunc"));
    const tokens = a.map((x, k) => tokenMismatch(x, b[k]));
    expect(tokens[2]).toBeUndefined();
    const present = tokens.filter((t) => t !== undefined);
    expect(present.map((t) => t.delta)).toEqual([...delta].filter((d) => !Number.isNaN(d)));
    expect(present.reduce((s, t) => s + t.k3, 0) / 3).toBeCloseTo(stats.k3, 12);
    expect(present.reduce((s, t) => s + t.absDp, 0) / 3).toBeCloseTo(stats.meanAbsDp, 12);
    expect(tokens[0]?.r).toBeCloseTo(Math.exp(0.3), 12);
  });

  it("equal lanes: no mismatch, nothing clipped or masked, ESS 1", () => {
    const lane = [-0.1, -2, -0.3];
    for (const kind of CORRECTION_KINDS) {
      const { stats } = computeMismatch({ a: lane, b: lane }, correction(kind));
      expect(stats).toMatchObject({ maxAbsDelta: 0, k1: 0, k2: 0, k3: 0, clipped: 0, masked: 0 });
      expect(stats.ess).toBeCloseTo(1, 12);
    }
  });

  it.each(CORRECTION_KINDS)("%s clips/masks exactly the tokens the reference picks", (kind) => {
    let corrected = 0;
    let kept = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { a, b, mask } = randomCase(seed, 60 + seed, seed % 4 === 0 ? 0.05 : 2.5);
      const c = correction(kind as CorrectionKind, { cap: 1 + (seed % 5) * 0.5 });
      const { stats, verdict } = computeMismatch({ a, b, mask }, c);
      const ref = reference(a, b, mask, c);
      expect(indicesWith(verdict, VERDICT.clipped)).toEqual(ref.clipped);
      expect(indicesWith(verdict, VERDICT.masked)).toEqual(ref.masked);
      expect(stats.clipped).toBe(ref.clipped.length);
      expect(stats.masked).toBe(ref.masked.length);
      corrected += stats.clipped + stats.masked;
      kept += stats.compared - stats.clipped - stats.masked;
    }
    // Not vacuous: the cases both correct and keep tokens.
    expect(corrected).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  });

  it("per-segment counts add up to the trajectory's", () => {
    const { a, b, mask } = randomCase(7, 100, 3);
    const { stats } = computeMismatch(
      { a, b, mask, segmentEnds: [10, 40, 41, 100] },
      correction("token-mask", { cap: 1.5 }),
    );
    expect(stats.segments).toHaveLength(4);
    const sum = (f: "compared" | "clipped" | "masked") =>
      stats.segments.reduce((s, g) => s + g[f], 0);
    expect(sum("compared")).toBe(stats.compared);
    expect(sum("masked")).toBe(stats.masked);
    expect(stats.masked).toBeGreaterThan(0);
  });

  it("properties: k1 = −mean δ, k2, k3 ≥ 0, ESS in (0, 1], swapping lanes negates δ", () => {
    const lp = fc.double({ min: -15, max: 0, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(lp, lp), { minLength: 1, maxLength: 40 }), (pairs) => {
        const a = pairs.map(([x]) => x);
        const b = pairs.map(([, y]) => y);
        const c = correction("token-trunc");
        const ab = computeMismatch({ a, b }, c);
        const ba = computeMismatch({ a: b, b: a }, c);
        const meanDelta = pairs.reduce((s, [x, y]) => s + (x - y), 0) / pairs.length;
        expect(ab.stats.k1).toBeCloseTo(-meanDelta, 9);
        expect(ab.stats.k2).toBeGreaterThanOrEqual(0);
        expect(ab.stats.k3).toBeGreaterThanOrEqual(-1e-12);
        expect(ab.stats.ess).toBeGreaterThan(0);
        expect(ab.stats.ess).toBeLessThanOrEqual(1 + 1e-12);
        expect(ba.stats.k1).toBeCloseTo(-ab.stats.k1, 9);
        expect(ba.stats.meanAbsDelta).toBeCloseTo(ab.stats.meanAbsDelta, 12);
        expect(ab.cumDelta[pairs.length - 1]).toBeCloseTo(ab.stats.sumDelta, 9);
        for (let k = 0; k < pairs.length; k++) {
          const w = ab.weight[k] as number;
          expect(w).toBeLessThanOrEqual(c.cap);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("fraction corrected and ESS of the corrected weights follow the verdicts", () => {
    const a = [0, -3, -0.1, -5];
    const b = [-1, -0.1, -0.1, -5.05];
    const { stats, weight } = computeMismatch({ a, b }, correction("token-mask", { cap: 2 }));
    // r = e^1 (masked), e^-2.9 (masked), 1, e^0.05
    expect(stats.masked).toBe(2);
    expect(stats.fractionCorrected).toBe(0.5);
    expect(weight[0]).toBe(0);
    const ws = [0, 0, 1, Math.exp(0.05)];
    const ess = ws.reduce((s, w) => s + w, 0) ** 2 / (4 * ws.reduce((s, w) => s + w * w, 0));
    expect(stats.essCorrected).toBeCloseTo(ess, 12);
  });
});

describe("trajectory mismatch", () => {
  const segments: Segment[] = [
    { kind: "prompt", turn: 0, tokenIds: [1, 2], lossMask: [0, 0], logprobs: [null, null] },
    { kind: "model", turn: 1, tokenIds: [3, 4], lossMask: [1, 1], logprobs: [-0.5, -1] },
    { kind: "tool", turn: 1, tokenIds: [5], lossMask: [0], logprobs: [null] },
    { kind: "model", turn: 2, tokenIds: [6], lossMask: [1], logprobs: [-2] },
  ];
  const t: Trajectory = {
    id: "t",
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "completed",
    segments,
    metadata: {},
  };

  it("compares a lane against the sampled logprobs on the trained tokens only", () => {
    const lane = [-9, -9, -0.5, -0.2, -9, -3];
    const withTrainer = withLane(t, "trainer", lane);
    expect(defaultLanes(withTrainer)).toEqual(["trainer", "sampled"]);
    const out = trajectoryMismatch(withTrainer, ["trainer", "sampled"], correction("token-trunc"));
    if (!out.ok) throw new Error(out.message);
    expect(out.result.stats.compared).toBe(3);
    expect(out.result.stats.sumDelta).toBeCloseTo(0 + 0.8 - 1, 12);
    expect(out.result.stats.segments.map((s) => s.compared)).toEqual([0, 2, 0, 1]);
    // r = e^0.8 > 2 on token 3.
    expect(out.result.stats.clipped).toBe(1);
    expect(out.result.verdict[3]).toBe(VERDICT.clipped);
    const file = aggregateMismatch([out.result.stats, out.result.stats]);
    expect(file.compared).toBe(6);
    expect(file.k3).toBeCloseTo(out.result.stats.k3, 12);
  });

  it("says which lane is missing", () => {
    const out = trajectoryMismatch(t, ["trainer", "sampled"], correction("token-mask"));
    expect(out).toEqual({ ok: false, message: "no lane trainer (lanes: sampled)" });
    expect(defaultLanes(t)).toBeUndefined();
  });

  it("a metadata array named for other per-token values is no default lane, even all ≤ 0", () => {
    // atropos' token_scores of a group with a negative score: -0.01 on every token.
    const negative = [-0.01, -0.01, -0.01, -0.01, -0.01, -0.01];
    for (const name of ["token_scores", "token_weights", "advantages", "entropy", "reward"]) {
      expect(defaultLanes({ ...t, metadata: { [name]: negative } })).toBeUndefined();
    }
    // An unnamed per-token array of logprob-like values is still offered, and --lanes names any.
    expect(defaultLanes({ ...t, metadata: { old_logprobs: negative } })).toEqual([
      "old_logprobs",
      "sampled",
    ]);
    const scores = { ...t, metadata: { token_scores: negative } };
    expect(
      trajectoryMismatch(scores, ["token_scores", "sampled"], correction("token-mask")).ok,
    ).toBe(true);
  });
});

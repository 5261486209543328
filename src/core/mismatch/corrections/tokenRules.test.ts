import { describe, expect, it } from "vitest";
import { rowOfProbs } from "../../../test/replayRowBuilders";
import { choose } from "./registry";
import { explainToken, replay } from "./replay";
import { REPLAY } from "./types";

const { kept, clipped, masked, weighted, unchecked } = REPLAY;

function run(name: string, rows: Parameters<typeof replay>[0], given = {}) {
  const choice = choose(name, given);
  if (typeof choice === "string") throw new Error(choice);
  return replay(rows, choice);
}

describe("IcePop (r outside [α, β] = [0.5, 5] masked)", () => {
  // r = 0.6/0.2 = 3, 0.1/0.5 = 0.2, 0.5/0.5 = 1, 0.6/0.1 = 6
  const row = rowOfProbs([0.6, 0.1, 0.5, 0.6], [0.2, 0.5, 0.5, 0.1]);
  it("masks 0.2 and 6, keeps 3 and 1 with weight r", () => {
    const r = run("icepop", [row]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([kept, masked, kept, masked]);
    const w = [...(r.outcomes[0]?.weight ?? [])];
    expect(w[0]).toBeCloseTo(3, 12);
    expect(w[1]).toBe(0);
    expect(w[2]).toBeCloseTo(1, 12);
    expect(w[3]).toBe(0);
  });
  it("summarizes: half masked, ESS (3+1)²/(4·(9+1)) = 0.4, no row dropped", () => {
    const s = run("icepop", [row]).summary;
    expect(s.fractionMasked).toBe(0.5);
    expect(s.fractionClipped).toBe(0);
    expect(s.ess).toBeCloseTo(0.4, 12);
    expect(s.rowsDropped).toEqual([]);
  });
  it("takes its bounds as thresholds, and says who masked a token and why", () => {
    const r = run("icepop", [row], { beta: 10 });
    expect(r.outcomes[0]?.verdict[3]).toBe(kept);
    const why = explainToken(run("icepop", [row]), [row], 0, 1);
    expect(why?.reason).toMatch(
      /IcePop masked this token: r = 0\.2 is outside \[α, β\] = \[0\.5, 5\]/,
    );
  });
});

describe("DPPO binary TV (prime-rl default_loss_fn, low = high = 0.2)", () => {
  // Δp = p_θ − p_old = 0.3, −0.3, −0.25
  const probs = [
    [0.9, 0.5, 0.1],
    [0.6, 0.8, 0.35],
  ] as const;
  it("A > 0 masks Δp > 0.2 only", () => {
    const r = run("dppo-tv", [rowOfProbs(probs[0], probs[1], 1)]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([masked, kept, kept]);
    expect(r.outcomes[0]?.weight[1]).toBeCloseTo(0.5 / 0.8, 12);
  });
  it("A < 0 and A = 0 mask Δp < −0.2 (torch.where(A > 0, high, low))", () => {
    for (const a of [-1, 0]) {
      const r = run("dppo-tv", [rowOfProbs(probs[0], probs[1], a)]);
      expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([kept, masked, masked]);
    }
  });
  it("a row without an advantage is unchecked, never kept", () => {
    const r = run("dppo-tv", [rowOfProbs(probs[0], probs[1])]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([unchecked, unchecked, unchecked]);
    expect(r.summary.unchecked).toBe(3);
    expect(r.summary.rowsUnchecked).toEqual([0]);
    expect(r.summary.kept).toBe(0);
  });
});

describe("DPPO binary KL (Stable-RL dppo_binary_kl, low = high = 0.2)", () => {
  // kl(0.6 → 0.9) = 0.6 ln(0.6/0.9) + 0.4 ln(0.4/0.1) = 0.311239  (p_θ up)
  // kl(0.8 → 0.5) = 0.8 ln(0.8/0.5) + 0.2 ln(0.2/0.5) = 0.192745  (below 0.2)
  // kl(0.35 → 0.1) = 0.35 ln(3.5) + 0.65 ln(0.65/0.9) = 0.226943  (p_θ down)
  const a = [0.9, 0.5, 0.1];
  const b = [0.6, 0.8, 0.35];
  it("A > 0 masks the token whose kl > 0.2 with p_θ > p_old", () => {
    const r = run("dppo-kl", [rowOfProbs(a, b, 2)]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([masked, kept, kept]);
  });
  it("A < 0 masks the token whose kl > 0.2 with p_θ < p_old", () => {
    const r = run("dppo-kl", [rowOfProbs(a, b, -2)]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([kept, kept, masked]);
    const why = explainToken(r, [rowOfProbs(a, b, -2)], 0, 2)?.reason ?? "";
    expect(why).toContain("binary kl = 0.2269");
  });
});

describe("CISPO (verl example ε_low = 10, ε_high = 0.2)", () => {
  it("clips r = 3 to 1.2, keeps 0.2 and 1.1 as they are", () => {
    // r = 3, 0.2, 1.1
    const r = run("cispo", [rowOfProbs([0.6, 0.1, 0.55], [0.2, 0.5, 0.5])]);
    expect([...(r.outcomes[0]?.verdict ?? [])]).toEqual([clipped, kept, kept]);
    const w = [...(r.outcomes[0]?.weight ?? [])];
    expect(w[0]).toBeCloseTo(1.2, 12);
    expect(w[1]).toBeCloseTo(0.2, 12);
    expect(w[2]).toBeCloseTo(1.1, 12);
    expect(r.summary.fractionClipped).toBeCloseTo(1 / 3, 12);
    expect(r.summary.masked).toBe(0);
  });
});

describe("SAPO soft gate (τ_pos = 1, τ_neg = 1.05)", () => {
  // g = 4σ(τ(r−1))(1−σ(τ(r−1))): r = 1 → 1; r = 2, τ = 1 → 0.786448; r = 2, τ = 1.05 → 0.768110
  const row = (adv: number) => rowOfProbs([0.4, 0.8], [0.4, 0.4], adv);
  it("weights r = 1 by 1 and r = 2 by r·g", () => {
    const pos = run("sapo", [row(1)]);
    expect([...(pos.outcomes[0]?.verdict ?? [])]).toEqual([weighted, weighted]);
    expect(pos.outcomes[0]?.weight[0]).toBeCloseTo(1, 12);
    expect(pos.outcomes[0]?.weight[1]).toBeCloseTo(2 * 0.7864477329659274, 10);
    const neg = run("sapo", [row(-1)]);
    expect(neg.outcomes[0]?.weight[1]).toBeCloseTo(2 * 0.7681097916952943, 10);
  });
});

describe("verl's five through the replay (one implementation: mismatch.ts)", () => {
  it("token-trunc clips r = 3 to C = 2, token-mask masks r outside [0.5, 2]", () => {
    // r = 3, 0.4, 1
    const row = rowOfProbs([0.6, 0.2, 0.3], [0.2, 0.5, 0.3]);
    const trunc = run("token-trunc", [row]);
    expect([...(trunc.outcomes[0]?.verdict ?? [])]).toEqual([clipped, kept, kept]);
    expect(trunc.outcomes[0]?.weight[0]).toBe(2);
    const mask = run("token-mask", [row]);
    expect([...(mask.outcomes[0]?.verdict ?? [])]).toEqual([masked, masked, kept]);
    expect(run("geo", [row]).summary.masked).toBe(0); // ρ = (3·0.4·1)^(1/3) = 1.0627
  });
});

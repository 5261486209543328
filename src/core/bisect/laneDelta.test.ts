import { describe, expect, it } from "vitest";
import { renormalizeOverKept } from "./keptSet";
import { laneAt } from "./laneAt";
import { laneDelta } from "./laneDelta";

describe("laneDelta", () => {
  it("gives mean/max |δ|, k3 and the fraction outside [0.9, 1.1] over trained tokens, by hand", () => {
    // Token 0 is a prompt token (mask 0); token 3 lacks a baseline value (missing).
    const lane = [-9, -1, -2, -0.5, -3];
    const baseline = [null, -1.2, -2, null, -2.9];
    const s = laneDelta(lane, baseline, [0, 1, 1, 1, 1]);
    // δ = 0.2, 0, −0.1; r = e^0.2 = 1.2214027581601699 (outside), 1, e^−0.1 = 0.9048374180359595.
    expect(s.compared).toBe(3);
    expect(s.missing).toBe(1);
    expect(s.meanAbsDelta).toBeCloseTo(0.1, 12);
    expect(s.maxAbsDelta).toBeCloseTo(0.2, 12);
    expect(s.maxAt).toBe(1);
    // k3 = r − 1 − δ: 0.0214027581601699, 0, 0.0048374180359595; mean 0.0087467253987098.
    expect(s.k3).toBeCloseTo(0.0087467253987098, 12);
    expect(s.outside).toBe(1);
    expect(s.fractionOutside).toBeCloseTo(1 / 3, 12);
  });

  it("counts r just inside the band as inside and δ = ±0.11 as outside", () => {
    const s = laneDelta(
      [-1 + Math.log(1.09), -1 + Math.log(0.91), -0.89, -1.11],
      [-1, -1, -1, -1],
      [1, 1, 1, 1],
    );
    expect(s.outside).toBe(2);
  });

  it("compares nothing when no trained token has both values: zeros, never agreement", () => {
    const s = laneDelta([null, -1], [-1, null], [1, 1]);
    expect(s).toMatchObject({ compared: 0, missing: 2, maxAt: -1, fractionOutside: 0 });
  });

  it("refuses lanes of another length", () => {
    expect(() => laneDelta([-1], [-1, -2], [1, 1])).toThrow(/lane 1, baseline 2, mask 2/);
  });
});

describe("renormalizeOverKept", () => {
  const alts = [
    { tokenId: 2, logprob: Math.log(0.3) },
    { tokenId: 1, logprob: Math.log(0.5) },
    { tokenId: 3, logprob: Math.log(0.15) },
    { tokenId: 4, logprob: Math.log(0.05) },
  ];

  it("keeps tokens while the mass before them is ≤ top_p (SGLang's sampler) and renormalises", () => {
    // Sorted 0.5, 0.3, 0.15, 0.05; mass before: 0, 0.5, 0.8 > 0.7 → kept {1, 2}, mass 0.8.
    const r = renormalizeOverKept(Math.log(0.3), 2, alts, 0.7, -1);
    expect(r.kind).toBe("kept");
    if (r.kind === "kept") {
      expect(r.logprob).toBeCloseTo(Math.log(0.375), 12);
      expect(r.isExact).toBe(true);
    }
    expect(renormalizeOverKept(Math.log(0.15), 3, alts, 0.7, -1)).toEqual({ kind: "outside" });
  });

  it("applies top_k before top_p", () => {
    const r = renormalizeOverKept(Math.log(0.5), 1, alts, 1, 1);
    expect(r).toEqual({ kind: "kept", logprob: 0, isExact: true });
    expect(renormalizeOverKept(Math.log(0.3), 2, alts, 1, 1)).toEqual({ kind: "outside" });
  });

  it("marks the result inexact when the list ends before a cut closes the set", () => {
    const short = alts.slice(0, 2);
    const r = renormalizeOverKept(Math.log(0.3), 2, short, 0.95, -1);
    expect(r.kind === "kept" && r.isExact).toBe(false);
    if (r.kind === "kept") expect(r.logprob).toBeCloseTo(Math.log(0.3 / 0.8), 12);
  });

  it("knows an unlisted token is outside when the listed ones already closed the set", () => {
    expect(renormalizeOverKept(Math.log(0.001), 9, alts, 0.7, -1)).toEqual({ kind: "outside" });
  });
});

describe("laneAt", () => {
  // A whole support at T = 1: p = 0.5, 0.3, 0.2.
  const alts = [
    { tokenId: 1, logprob: Math.log(0.5) },
    { tokenId: 2, logprob: Math.log(0.3) },
    { tokenId: 3, logprob: Math.log(0.2) },
  ];

  it("scales to temperature T by the definition: p_T ∝ p^(1/T)", () => {
    // T = 0.5: p² = 0.25, 0.09, 0.04, sum 0.38; p_T(2) = 0.09 / 0.38.
    const r = laneAt(Math.log(0.3), 2, alts, { temperature: 0.5 });
    expect(r.kind === "value" && r.isExact).toBe(true);
    if (r.kind === "value") expect(r.logprob).toBeCloseTo(Math.log(0.09 / 0.38), 12);
  });

  it("marks a scaling from a partial top-k as inexact", () => {
    const r = laneAt(Math.log(0.3), 2, alts.slice(0, 2), { temperature: 0.5 });
    expect(r.kind === "value" && r.isExact).toBe(false);
    // Over the listed two only: 0.09 / (0.25 + 0.09).
    if (r.kind === "value") expect(r.logprob).toBeCloseTo(Math.log(0.09 / 0.34), 12);
  });

  it("forms the kept set from the scaled distribution, then renormalises", () => {
    // T = 0.5 gives 0.6579, 0.2368, 0.1053; top_p 0.7 keeps {1, 2} (mass before 3: 0.8947).
    const r = laneAt(Math.log(0.3), 2, alts, {
      temperature: 0.5,
      truncation: { top_p: 0.7, top_k: -1 },
    });
    if (r.kind !== "value") throw new Error("expected a value");
    expect(r.logprob).toBeCloseTo(Math.log(0.09 / 0.34), 12);
    expect(
      laneAt(Math.log(0.2), 3, alts, { temperature: 0.5, truncation: { top_p: 0.7, top_k: -1 } }),
    ).toEqual({
      kind: "outside",
    });
  });

  it("leaves a T = 1 value as scored", () => {
    expect(laneAt(-0.7, 9, [], { temperature: 1 })).toEqual({
      kind: "value",
      logprob: -0.7,
      isExact: true,
    });
  });
});

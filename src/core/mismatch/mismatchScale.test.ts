import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MISMATCH_EXTENT,
  diverging,
  MISMATCH_EXTENTS,
  mismatchColor,
  mismatchExtentOrDefault,
  mismatchPosition,
  mismatchTicks,
} from "./mismatchScale";

function rgb(css: string): number[] {
  return (css.match(/\d+/g) ?? []).map(Number);
}

/** Blue minus red: positive for the blue side of the scale, negative for the red side. */
function blueness(css: string): number {
  const [r = 0, , b = 0] = rgb(css);
  return b - r;
}

describe("mismatchScale", () => {
  it("is centred on δ = 0: a neutral, light colour with dark text", () => {
    const { background, color } = mismatchColor(0, DEFAULT_MISMATCH_EXTENT);
    const [r = 0, g = 0, b = 0] = rgb(background);
    expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThan(8);
    expect(Math.min(r, g, b)).toBeGreaterThan(230);
    expect(color).toBe("#111111");
  });

  it("diverges: blue below 0 (r < 1), red above, symmetric in |δ|", () => {
    for (const extent of MISMATCH_EXTENTS) {
      for (const f of [0.2, 0.5, 1]) {
        const below = mismatchColor(-f * extent, extent).background;
        const above = mismatchColor(f * extent, extent).background;
        expect(blueness(below)).toBeGreaterThan(0);
        expect(blueness(above)).toBeLessThan(0);
        expect(mismatchPosition(-f * extent, extent)).toBeCloseTo(
          -mismatchPosition(f * extent, extent),
          12,
        );
      }
    }
  });

  it("is monotone in δ, clamped to [−1, 1], and NaN where nothing is compared", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.constantFrom(...MISMATCH_EXTENTS),
        (a, b, extent) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const tLo = mismatchPosition(lo, extent);
          const tHi = mismatchPosition(hi, extent);
          return tLo <= tHi && tLo >= -1 && tHi <= 1;
        },
      ),
    );
    expect(mismatchPosition(Number.NaN, 1)).toBeNaN();
    expect(mismatchPosition(3, 0.5)).toBe(1);
    expect(mismatchPosition(-3, 0.5)).toBe(-1);
    expect(mismatchPosition(0.25, 0.5)).toBe(0.5);
  });

  it("gets darker (further from the centre colour) as |δ| grows, with white text at the ends", () => {
    const centre = diverging(0);
    const dist = (t: number) => Math.hypot(...diverging(t).map((v, i) => v - (centre[i] ?? 0)));
    for (const side of [-1, 1]) {
      let last = 0;
      for (const f of [0.1, 0.3, 0.5, 0.7, 0.9, 1]) {
        const d = dist(side * f);
        expect(d).toBeGreaterThan(last);
        last = d;
      }
      expect(mismatchColor(side * 10, 1).color).toBe("#ffffff");
    }
  });

  it("labels five ticks with δ and the ratio r = exp(δ)", () => {
    const ticks = mismatchTicks(0.5);
    expect(ticks.map((t) => t.at)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(ticks.map((t) => t.label)).toEqual(["≤−0.5", "−0.25", "0", "+0.25", "≥+0.5"]);
    expect(ticks.map((t) => t.ratio)).toEqual(["×0.61", "×0.78", "×1", "×1.3", "×1.6"]);
  });

  it("falls back to the default extent for a value it does not offer", () => {
    expect(mismatchExtentOrDefault(1)).toBe(1);
    expect(mismatchExtentOrDefault(0.3)).toBe(DEFAULT_MISMATCH_EXTENT);
    expect(mismatchExtentOrDefault(undefined)).toBe(DEFAULT_MISMATCH_EXTENT);
  });
});

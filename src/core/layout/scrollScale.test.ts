import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_SCROLL_PX,
  physicalItemTop,
  scrollScale,
  toPhysicalOffset,
  toVirtualOffset,
} from "./scrollScale";

describe("scrollScale", () => {
  it.each([
    {
      name: "small list: identity",
      size: 260_000,
      viewport: 600,
      max: MAX_SCROLL_PX,
      physical: 260_000,
      ratio: 1,
    },
    {
      name: "exactly at the cap: identity",
      size: 1_000,
      viewport: 100,
      max: 1_000,
      physical: 1_000,
      ratio: 1,
    },
    {
      name: "over the cap: scaled ranges",
      size: 10_100,
      viewport: 100,
      max: 1_100,
      physical: 1_100,
      ratio: 10,
    },
    {
      name: "viewport taller than the cap: no scaling",
      size: 5_000,
      viewport: 2_000,
      max: 1_000,
      physical: 5_000,
      ratio: 1,
    },
  ])("$name", ({ size, viewport, max, physical, ratio }) => {
    const scale = scrollScale(size, viewport, max);
    expect(scale.physicalSize).toBe(physical);
    expect(scale.ratio).toBe(ratio);
  });

  it("maps both ends and the middle of a scaled list", () => {
    const scale = scrollScale(10_100, 100, 1_100);
    expect(toVirtualOffset(scale, 0)).toBe(0);
    expect(toVirtualOffset(scale, 1_000)).toBe(10_000);
    expect(toVirtualOffset(scale, 500)).toBe(5_000);
    expect(toPhysicalOffset(scale, 10_000)).toBe(1_000);
    // Out-of-range offsets clamp to the scrollable range instead of leaving it.
    expect(toVirtualOffset(scale, 5_000)).toBe(10_000);
    expect(toPhysicalOffset(scale, -3)).toBe(0);
    expect(toPhysicalOffset(scale, 99_999)).toBe(1_000);
  });

  it("keeps items near the viewport at their true distance from its top", () => {
    const scale = scrollScale(10_100, 100, 1_100);
    // Scrolled to physical 500 (virtual 5,000): an item at virtual 5,040 sits 40 px below the top.
    expect(physicalItemTop(scale, 500, 5_040) - 500).toBe(40);
    expect(physicalItemTop(scale, 500, 5_000)).toBe(500);
  });

  it("round-trips offsets for 50M-px lists within a pixel", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.integer({ min: 100, max: 3_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (size, viewport, at) => {
          const scale = scrollScale(size, viewport);
          expect(scale.physicalSize).toBeLessThanOrEqual(MAX_SCROLL_PX);
          const virtual = at * Math.max(0, size - viewport);
          expect(
            Math.abs(toVirtualOffset(scale, toPhysicalOffset(scale, virtual)) - virtual),
          ).toBeLessThan(1);
        },
      ),
    );
  });

  it("rejects bad input naming the argument", () => {
    expect(() => scrollScale(Number.NaN, 100)).toThrow(/virtualSize must be a finite number/);
    expect(() => scrollScale(100, -1)).toThrow(/viewport must be a finite number >= 0, got -1/);
  });
});

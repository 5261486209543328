import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { envelope } from "./envelope";

describe("envelope", () => {
  it("keeps every value's min and max per span, and covers every position once", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 50 }),
        (values, most) => {
          const buckets = envelope(values, most);
          expect(buckets.length).toBe(Math.min(values.length, most));
          expect(buckets[0]?.start).toBe(0);
          expect(buckets.at(-1)?.end).toBe(values.length);
          buckets.forEach((b, i) => {
            if (i > 0) expect(b.start).toBe(buckets[i - 1]?.end);
            const span = values.slice(b.start, b.end);
            expect(b.min).toBe(Math.min(...span));
            expect(b.max).toBe(Math.max(...span));
          });
        },
      ),
    );
  });

  it("keeps a one-token spike among many", () => {
    const values = new Float64Array(131_072);
    values[77_777] = 5;
    const buckets = envelope(values, 400);
    expect(Math.max(...buckets.map((b) => b.max))).toBe(5);
  });

  it("skips NaN, and spans of NaN only", () => {
    expect(envelope([Number.NaN, 1, Number.NaN, Number.NaN], 2)).toEqual([
      { start: 0, end: 2, min: 1, max: 1 },
    ]);
    expect(envelope([], 10)).toEqual([]);
  });
});

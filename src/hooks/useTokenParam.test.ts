import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { searchWithToken, TOKEN_URL_INTERVAL_MS, throttleLatest } from "./useTokenParam";

describe("the token written into the URL", () => {
  it("replaces the token in the query, the rest kept in order", () => {
    expect(searchWithToken("", 7)).toBe("token=7");
    expect(searchWithToken("sort=reward&token=3", 1353)).toBe("sort=reward&token=1353");
  });

  describe("at most once per interval while tokens are stepped through", () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it("writes the first at once and always the last, never more often (Safari's replaceState limit)", () => {
      const written: number[] = [];
      const t = throttleLatest(
        (v: number) => written.push(v),
        TOKEN_URL_INTERVAL_MS,
        () => Date.now(),
      );
      t.push(1);
      expect(written).toEqual([1]);
      // A held arrow key: 30 steps a second for 3 seconds.
      for (let k = 2; k <= 91; k++) {
        vi.advanceTimersByTime(33);
        t.push(k);
      }
      vi.advanceTimersByTime(TOKEN_URL_INTERVAL_MS);
      expect(written.at(-1)).toBe(91);
      expect(written.length).toBeLessThanOrEqual(1 + Math.ceil(3000 / TOKEN_URL_INTERVAL_MS) + 1);
      expect(written.length).toBeGreaterThan(3);
      // Quiet again: the next selection is written at once.
      vi.advanceTimersByTime(1000);
      t.push(5);
      expect(written.at(-1)).toBe(5);
    });

    it("drops a write still waiting when cancelled (the page changed)", () => {
      const written: number[] = [];
      const t = throttleLatest(
        (v: number) => written.push(v),
        100,
        () => Date.now(),
      );
      t.push(1);
      t.push(2);
      t.cancel();
      vi.advanceTimersByTime(500);
      expect(written).toEqual([1]);
    });
  });
});

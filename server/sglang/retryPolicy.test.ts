import { describe, expect, it } from "vitest";
import { backoffDelayMs, parseRetryAfterMs } from "./retryPolicy";

const policy = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000 };

describe("backoffDelayMs (full jitter)", () => {
  it.each([
    // attempt, random, retryAfterMs, expected
    [1, 0.5, undefined, 50],
    [2, 0.5, undefined, 100],
    [3, 0.999, undefined, 399.6],
    [5, 1, undefined, 1000], // window capped at maxDelayMs
    [1, 0, undefined, 0],
    [1, 0.1, 700, 700], // Retry-After raises the floor
    [1, 0.1, 5000, 1000], // …but never past maxDelayMs
  ])("attempt %i, random %f, retry-after %s → %f ms", (attempt, r, retryAfter, expected) => {
    expect(backoffDelayMs(policy, attempt, retryAfter, () => r)).toBeCloseTo(expected, 6);
  });
});

describe("parseRetryAfterMs", () => {
  it.each([
    ["3", 3000],
    ["0.5", 500],
    ["", undefined],
    [undefined, undefined],
    ["soon", undefined],
    ["Thu, 01 Jan 1970 00:00:10 GMT", 4000],
  ])("%j → %s", (header, expected) => expect(parseRetryAfterMs(header, 6000)).toBe(expected));
});

import { describe, expect, it } from "vitest";
import { row } from "../../test/rowSummaryBuilders";
import { categoryCounts, histogram, rolloutSeries, shortNumber } from "./rolloutSeries";

describe("histogram", () => {
  it("splits the range into equal bins, the last one closed", () => {
    const bins = histogram([0, 0.1, 0.5, 0.99, 1, undefined, Number.NaN], 4);
    expect(bins.map((b) => [b.start, b.end, b.count])).toEqual([
      [0, 0.25, 2],
      [0.25, 0.5, 0],
      [0.5, 0.75, 1],
      [0.75, 1, 2],
    ]);
  });

  it("gives one bar to a single distinct value and none to no values", () => {
    expect(histogram([3, 3, 3])).toEqual([{ start: 3, end: 3, count: 3, label: "3" }]);
    expect(histogram([undefined])).toEqual([]);
  });

  it("uses integer-wide bins for token counts", () => {
    const bins = histogram([1, 2, 3, 4, 5], 20, true);
    expect(bins.every((b) => b.end - b.start <= 1)).toBe(true);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(5);
  });
});

describe("counts and labels", () => {
  it("counts categories largest first, missing as none", () => {
    expect(categoryCounts(["stop", undefined, "length", "stop"])).toEqual([
      { key: "stop", count: 2 },
      { key: "length", count: 1 },
      { key: "none", count: 1 },
    ]);
  });

  it.each([
    [1234, "1.2k"],
    [2_500_000, "2.5M"],
    [0.125, "0.13"],
    [-3, "-3"],
  ])("shortNumber(%s) = %s", (value, want) => expect(shortNumber(value)).toBe(want));

  it("prepares the series of the picked rows only", () => {
    const rows = [row(0, { status: "aborted" }), row(1), row(2, { finishReason: undefined })];
    const series = rolloutSeries(rows, [1, 2]);
    expect(series.status).toEqual([{ key: "completed", count: 2 }]);
    expect(series.finishReason).toEqual([
      { key: "none", count: 1 },
      { key: "stop", count: 1 },
    ]);
    expect(series.totalTokens).toEqual([{ start: 100, end: 100, count: 2, label: "100" }]);
  });
});

describe("turns and logprob-by-position series", () => {
  it("bins turns per episode and averages position sums of the picked rows", () => {
    const rows = [
      row(0, { turns: 1, logprobByPosition: { sums: [-1], counts: [1] } }),
      row(1, { turns: 2, logprobByPosition: { sums: [-3, -4], counts: [1, 2] } }),
      row(2, { turns: 9, logprobByPosition: { sums: [-100], counts: [1] } }),
    ];
    const series = rolloutSeries(rows, [0, 1]);
    expect(series.turns.map((b) => [b.start, b.end, b.count])).toEqual([
      [1, 2, 1],
      [2, 2, 1],
    ]);
    expect(series.logprobByPosition.map((b) => [b.label, b.mean, b.tokens])).toEqual([
      ["0–1k", -2, 2],
      ["1k–2k", -2, 2],
    ]);
  });
});

describe("rows without token ids", () => {
  it("leave the token and turn histograms: their 0 is not recorded, not a count", () => {
    const rows = [row(0, { totalTokens: 0, trainableTokens: 0, turns: 0 }), row(1, { turns: 2 })];
    const series = rolloutSeries(rows, [0, 1]);
    expect(series.totalTokens).toEqual([{ start: 100, end: 100, count: 1, label: "100" }]);
    expect(series.turns.map((b) => [b.start, b.count])).toEqual([[2, 1]]);
    expect(rolloutSeries(rows, [0]).totalTokens).toEqual([]);
  });
});

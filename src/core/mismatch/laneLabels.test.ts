import { describe, expect, it } from "vitest";
import { countLanePair, emptyCharts, mergeCharts } from "./fileMismatch";
import { laneLabels } from "./laneLabels";

describe("laneLabels", () => {
  it("names the one pair every row compared", () => {
    const charts = emptyCharts();
    countLanePair(charts.lanePairs, "reference", "rescored");
    countLanePair(charts.lanePairs, "reference", "rescored");
    expect(charts.lanePairs).toEqual([{ a: "reference", b: "rescored", rows: 2 }]);
    expect(laneLabels(charts.lanePairs)).toEqual({ a: "reference", b: "rescored" });
  });

  it("says lane a/b and lists the pairs when rows compared different lanes", () => {
    const one = emptyCharts();
    const two = emptyCharts();
    countLanePair(one.lanePairs, "trainer", "sampled");
    countLanePair(two.lanePairs, "rescored", "sampled");
    countLanePair(two.lanePairs, "trainer", "sampled");
    const merged = mergeCharts(one, two);
    expect(merged.lanePairs).toEqual([
      { a: "trainer", b: "sampled", rows: 2 },
      { a: "rescored", b: "sampled", rows: 1 },
    ]);
    expect(laneLabels(merged.lanePairs)).toEqual({
      a: "lane a",
      b: "lane b",
      mixed: "lanes differ by row: trainer − sampled (2 rows), rescored − sampled (1 row)",
    });
  });

  it("names no lane before a row was compared", () => {
    expect(laneLabels([])).toEqual({ a: "lane a", b: "lane b" });
  });
});

import { describe, expect, it } from "vitest";
import { row } from "../../test/rowSummaryBuilders";
import { groupStats } from "./groupStats";

describe("groupStats", () => {
  const rows = [
    row(0, { group: "a", reward: 1 }),
    row(1, { group: "b", reward: 0.5, advantage: 0 }),
    row(2, { group: "a", reward: 0 }),
    row(3, { reward: 9 }),
    row(4, { group: "b", reward: 0.5, advantage: 0 }),
    row(5, { group: "c", reward: undefined }),
    row(6, { group: "a", reward: 0.5, advantage: 0.3 }),
  ];
  const stats = groupStats(rows);

  it("groups in order of first appearance and skips rows without a group", () => {
    expect(stats.map((g) => [g.group, g.members])).toEqual([
      ["a", [0, 2, 6]],
      ["b", [1, 4]],
      ["c", [5]],
    ]);
  });

  it("computes mean, population std, range, best and worst", () => {
    const a = stats[0];
    expect(a?.mean).toBeCloseTo(0.5);
    expect(a?.std).toBeCloseTo(Math.sqrt(1 / 6));
    expect([a?.min, a?.max, a?.best, a?.worst]).toEqual([0, 1, 0, 2]);
    expect(a?.zeroVariance).toBe(false);
    expect(a?.meanAdvantage).toBeCloseTo(0.3);
  });

  it("flags equal-reward groups as zero variance, but not unrewarded ones", () => {
    expect(stats[1]).toMatchObject({ zeroVariance: true, std: 0, meanAdvantage: 0 });
    expect(stats[2]).toMatchObject({ zeroVariance: false, rewarded: 0, mean: undefined });
  });
});

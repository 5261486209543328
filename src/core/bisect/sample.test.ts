import { describe, expect, it } from "vitest";
import { pickSample, sampleDifferences, sampleTable } from "./sample";
import { checkSampleBundle } from "./sampleBundle";
import type { BisectRow } from "./table";

const stats = (
  compared: number,
  meanAbsDelta: number,
  maxAbsDelta: number,
  maxAt: number,
  k3: number,
  outside: number,
) => ({
  compared,
  missing: 1,
  meanAbsDelta,
  maxAbsDelta,
  maxAt,
  k3,
  outside,
  fractionOutside: outside / compared,
});

const ran = (knob: BisectRow["knob"], s: ReturnType<typeof stats>): BisectRow => ({
  knob,
  status: "ran",
  change: "x",
  stats: s,
  notes: [],
});

describe("pickSample", () => {
  const candidates = [
    { row: 0, eligible: true as const },
    { row: 1, eligible: false as const, reason: "no trained token" },
    { row: 2, eligible: true as const },
    { row: 3, eligible: true as const },
    { row: 4, eligible: true as const },
  ];

  it("picks N eligible rows, the same for the same seed, skipping the rest with reasons", () => {
    const a = pickSample(candidates, 2, 7);
    expect(a.rows).toHaveLength(2);
    expect(a.rows.every((r) => [0, 2, 3, 4].includes(r))).toBe(true);
    expect(a.rows).toEqual([...a.rows].sort((x, y) => x - y));
    expect(pickSample(candidates, 2, 7)).toEqual(a);
    expect(a.skipped).toEqual([{ row: 1, reason: "no trained token" }]);
    // Some seed picks another pair: the seed is used, not ignored.
    const pairs = new Set([1, 2, 3, 4, 5, 6].map((s) => pickSample(candidates, 2, s).rows.join()));
    expect(pairs.size).toBeGreaterThan(1);
  });

  it("takes every eligible row when N exceeds them", () => {
    expect(pickSample(candidates, 10, 0).rows).toEqual([0, 2, 3, 4]);
  });
});

describe("sampleTable", () => {
  it("pools the rows' statistics, weighting each by its compared tokens, by hand", () => {
    const table = sampleTable([
      {
        row: 3,
        table: [
          ran("reference", stats(2, 0.1, 0.15, 5, 0.01, 1)),
          { knob: "upstream", status: "unchecked", reason: "no second upstream" },
        ],
      },
      {
        row: 8,
        table: [
          ran("reference", stats(6, 0.3, 0.5, 2, 0.05, 3)),
          { knob: "upstream", status: "unchecked", reason: "no second upstream" },
        ],
      },
    ]);
    // mean |δ| = (0.1·2 + 0.3·6) / 8 = 2.0 / 8 = 0.25; K3 = (0.02 + 0.3) / 8 = 0.04;
    // outside 4 of 8; max 0.5 on row 8 token 2; missing 1 + 1.
    expect(table[0]).toMatchObject({
      knob: "reference",
      status: "ran",
      rows: 2,
      compared: 8,
      missing: 2,
      maxAbsDelta: 0.5,
      maxRow: 8,
      maxAt: 2,
      outside: 4,
      fractionOutside: 0.5,
      unchecked: [],
    });
    if (table[0]?.status !== "ran") throw new Error("reference did not pool");
    expect(table[0].meanAbsDelta).toBeCloseTo(0.25, 12);
    expect(table[0].k3).toBeCloseTo(0.04, 12);
    expect(table[1]).toEqual({
      knob: "upstream",
      status: "unchecked",
      unchecked: [
        { row: 3, reason: "no second upstream" },
        { row: 8, reason: "no second upstream" },
      ],
    });
  });

  it("keeps a knob unchecked on some rows as ran, listing those rows", () => {
    const [t] = sampleTable([
      { row: 0, table: [ran("batch", stats(4, 0.2, 0.4, 1, 0.02, 0))] },
      { row: 1, table: [{ knob: "batch", status: "unchecked", reason: "the rescore failed: x" }] },
    ]);
    expect(t).toMatchObject({
      status: "ran",
      rows: 1,
      compared: 4,
      maxRow: 0,
      unchecked: [{ row: 1, reason: "the rescore failed: x" }],
    });
  });

  it("lists where two sample tables differ", () => {
    const a = sampleTable([{ row: 0, table: [ran("batch", stats(4, 0.2, 0.4, 1, 0.02, 0))] }]);
    const b = sampleTable([{ row: 0, table: [ran("batch", stats(4, 0.2, 0.5, 1, 0.02, 0))] }]);
    expect(sampleDifferences(a, a)).toEqual([]);
    expect(sampleDifferences(a, b)).toEqual(["batch: maxAbsDelta 0.4 in the bundle, 0.5 now"]);
  });
});

describe("checkSampleBundle", () => {
  it("names the field of a bad sample bundle", () => {
    const bad = {
      format: "rollout-lens/bisect-sample-bundle",
      version: 1,
      created_at: "now",
      sample: { file: "f", n: 2, seed: 0, rows: [1, 2], skipped: [] },
      bundles: [{}],
    };
    const parsed = checkSampleBundle(bad, "s.json");
    expect(parsed).toEqual({
      ok: false,
      error: "s.json: bundles: has 1 entries but sample.rows has 2",
    });
    const one = checkSampleBundle({ ...bad, sample: { ...bad.sample, rows: [1] } }, "s.json");
    expect(one.ok || one.error).toMatch(/^s\.json: bundles\[0\]: format: /);
  });
});

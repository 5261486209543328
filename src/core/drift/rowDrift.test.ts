import { describe, expect, it } from "vitest";
import { parseDriftMode, type RowDrift, rowDriftOf, summarizeFileDrift } from "./rowDrift";
import type { DriftClass, DriftRegion, DriftResult } from "./types";

function region(classes: DriftClass[], trainableAffected: number): DriftRegion {
  return {
    t: [0, 1],
    r: [0, 1],
    bytes: [0, 1],
    text: "",
    retokText: "",
    tito: [],
    retok: [],
    delta: 0,
    classes,
    segment: 0,
    role: "model",
    trainableAffected,
    trainableLogprobSum: 0,
  };
}

function result(regions: DriftRegion[]): DriftResult {
  return {
    mode: "roundtrip",
    lenTito: 10,
    lenRetok: 10,
    textEqual: true,
    firstDivergenceIndex: regions.length > 0 ? 3 : undefined,
    regions,
    trainableTokensAffected: regions.reduce((n, r) => n + r.trainableAffected, 0),
  };
}

describe("rowDriftOf", () => {
  it("counts regions per class and keeps the summary numbers", () => {
    const d = rowDriftOf(
      result([
        region(["merge", "segment_boundary", "mask_straddle"], 1),
        region(["resegment"], 2),
        region(["merge"], 0),
      ]),
    );
    expect(d).toEqual({
      regions: 3,
      trainableAffected: 3,
      firstDivergenceIndex: 3,
      textEqual: true,
      classCounts: { merge: 2, segment_boundary: 1, mask_straddle: 1, resegment: 1 },
    });
  });
  it("is clean for a clean result", () => {
    expect(rowDriftOf(result([]))).toMatchObject({ regions: 0, firstDivergenceIndex: undefined });
  });
});

describe("summarizeFileDrift", () => {
  const rows: (RowDrift | undefined)[] = [
    rowDriftOf(result([])),
    rowDriftOf(result([region(["merge"], 0)])),
    rowDriftOf(result([region(["resegment"], 2), region(["merge", "special_token"], 1)])),
    undefined,
  ];
  it("sums drifted rows, classes and trained tokens; counts rows the check skipped", () => {
    expect(summarizeFileDrift(rows)).toEqual({
      checked: 3,
      unchecked: 1,
      drifted: 2,
      driftedTrained: 1,
      regions: 3,
      regionsByClass: { merge: 2, resegment: 1, special_token: 1 },
      trainableTokensAffected: 3,
    });
  });
  it("is all zero for an empty file", () => {
    expect(summarizeFileDrift([])).toMatchObject({ checked: 0, drifted: 0, regions: 0 });
  });
});

describe("parseDriftMode", () => {
  it.each([
    ["roundtrip", "roundtrip"],
    ["template", "template"],
    ["text", "text"],
    ["all", undefined],
    [null, undefined],
  ] as const)("%s -> %s", (value, want) => {
    expect(parseDriftMode(value)).toBe(want);
  });
});

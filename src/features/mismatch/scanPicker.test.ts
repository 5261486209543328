import { describe, expect, it } from "vitest";
import { correction } from "../../core/mismatch/mismatch";
import { correctionLabel, DEFAULT_DRAFT, scanOptionsOf } from "./scanPicker";

describe("the file scan's lane and correction picker", () => {
  it("defaults to each trajectory's lanes and token truncation at C = 2", () => {
    expect(scanOptionsOf(DEFAULT_DRAFT)).toEqual({
      ok: true,
      options: { correction: correction("token-trunc") },
    });
  });

  it("passes both lanes and the rule with the CLI's --cap semantics", () => {
    const out = scanOptionsOf({
      laneA: " sampled",
      laneB: "reference ",
      kind: "token-mask",
      cap: "1.5",
    });
    expect(out).toEqual({
      ok: true,
      options: {
        lanes: ["sampled", "reference"],
        correction: correction("token-mask", { cap: 1.5 }),
      },
    });
    if (out.ok) expect(out.options.correction).toMatchObject({ lo: 1 / 1.5, hi: 1.5 });
  });

  it("refuses one lane alone, the same lane twice and a threshold that is not positive", () => {
    expect(scanOptionsOf({ ...DEFAULT_DRAFT, laneA: "trainer" })).toMatchObject({ ok: false });
    expect(scanOptionsOf({ ...DEFAULT_DRAFT, laneA: "x", laneB: "x" })).toMatchObject({
      ok: false,
      message: "both lanes are x: nothing to compare",
    });
    for (const cap of ["", "0", "-1", "abc"]) {
      expect(scanOptionsOf({ ...DEFAULT_DRAFT, cap })).toMatchObject({ ok: false });
    }
  });

  it("labels what the rule did", () => {
    expect(correctionLabel({})).toBe("clipped (token-trunc, C = 2)");
    expect(correctionLabel({ correction: correction("seq-mask", { cap: 4 }) })).toBe(
      "masked (seq-mask, outside [0.25, 4])",
    );
  });
});

import { describe, expect, it } from "vitest";
import { whatIfChoices } from "./useWhatIf";
import { whatIfCells } from "./whatIf";

describe("the what-if table's choices and cells", () => {
  it("applies an edit over the defaults, lo following hi as in verl, and ignores a bad one", () => {
    const choices = whatIfChoices({ "token-mask": { hi: 4 }, icepop: { gamma: 1 } });
    expect(choices.find((c) => c.name === "token-mask")?.params).toEqual({ hi: 4, lo: 0.25 });
    expect(choices.find((c) => c.name === "icepop")?.params).toEqual({ alpha: 0.5, beta: 5 });
    expect(choices).toHaveLength(16);
  });

  it("shows fractions with counts, unchecked rows, ESS and the rows dropped", () => {
    const cells = whatIfCells({
      name: "opsm",
      params: { delta: 1e-4 },
      rows: 3,
      compared: 8,
      kept: 2,
      clipped: 0,
      masked: 4,
      weighted: 0,
      unchecked: 2,
      fractionMasked: 0.5,
      fractionClipped: 0,
      fractionUnchecked: 0.25,
      ess: 0.123456,
      rowsDropped: [0],
      rowsUnchecked: [2],
    });
    expect(cells).toEqual({
      name: "opsm",
      thresholds: "delta 0.0001",
      masked: "50.00 % (4)",
      clipped: "0.00 % (0)",
      unchecked: "25.00 % (1 rows)",
      ess: "0.1235",
      dropped: "1",
    });
  });

  it("with no token compared, says every row is unchecked and shows no 0 % as if the rule ran", () => {
    const cells = whatIfCells({
      name: "icepop",
      params: { alpha: 0.5, beta: 5 },
      rows: 24,
      compared: 0,
      kept: 0,
      clipped: 0,
      masked: 0,
      weighted: 0,
      unchecked: 0,
      fractionMasked: 0,
      fractionClipped: 0,
      fractionUnchecked: 0,
      ess: 0,
      rowsDropped: [],
      rowsUnchecked: [],
    });
    expect(cells).toEqual({
      name: "icepop",
      thresholds: "alpha 0.5, beta 5",
      masked: "—",
      clipped: "—",
      unchecked: "every row (no token compared)",
      ess: "—",
      dropped: "—",
    });
  });
});

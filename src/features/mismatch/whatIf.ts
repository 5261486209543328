import type { ReplaySummary } from "../../core/mismatch/corrections/replay";

/** One row of the what-if table as text, the cells the table shows (and its test reads). */
export interface WhatIfCells {
  readonly name: string;
  readonly thresholds: string;
  readonly masked: string;
  readonly clipped: string;
  readonly unchecked: string;
  readonly ess: string;
  readonly dropped: string;
}

const percent = (x: number) => `${(100 * x).toFixed(2)} %`;

/**
 * The cells of one replay: fractions of compared tokens, ESS, rows dropped. With no token
 * compared the rule decided nothing: its cells say so ("—", every row unchecked), never a 0 %
 * that reads as "ran and clipped nothing".
 */
export function whatIfCells(r: ReplaySummary): WhatIfCells {
  const thresholds = Object.entries(r.params)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  if (r.compared === 0) {
    // `rows` counts the rows the replay took in, 0 when none had two lanes: no count is said.
    return {
      name: r.name,
      thresholds,
      masked: "—",
      clipped: "—",
      unchecked: "every row (no token compared)",
      ess: "—",
      dropped: "—",
    };
  }
  return {
    name: r.name,
    thresholds,
    masked: `${percent(r.fractionMasked)} (${r.masked})`,
    clipped: `${percent(r.fractionClipped)} (${r.clipped})`,
    unchecked:
      r.unchecked === 0 ? "—" : `${percent(r.fractionUnchecked)} (${r.rowsUnchecked.length} rows)`,
    ess: r.ess.toFixed(4),
    dropped: r.rowsDropped.length === 0 ? "none" : String(r.rowsDropped.length),
  };
}

import type { ReplayRow } from "../core/mismatch/corrections/types";

/**
 * A row of compared tokens from probabilities (a: π_θ, b: π_old) or log ratios, for the
 * correction tests: every token compared, token index = position.
 */
export function rowOfProbs(
  a: readonly number[],
  b: readonly number[],
  advantage?: number,
  row = 0,
): ReplayRow {
  return {
    row,
    id: `r${row}`,
    at: Int32Array.from(a, (_, i) => i),
    a: Float64Array.from(a, Math.log),
    b: Float64Array.from(b, Math.log),
    advantage,
    advantageSource: advantage === undefined ? undefined : "recorded",
  };
}

/** A row whose log ratios are `deltas` (lane b at log 0.5, lane a = b + δ). */
export function rowOfDeltas(deltas: readonly number[], advantage?: number, row = 0): ReplayRow {
  const b = Math.log(0.5);
  return {
    row,
    id: `r${row}`,
    at: Int32Array.from(deltas, (_, i) => i),
    a: Float64Array.from(deltas, (d) => b + d),
    b: Float64Array.from(deltas, () => b),
    advantage,
    advantageSource: advantage === undefined ? undefined : "recorded",
  };
}

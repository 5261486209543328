import { safeExp } from "../mismatch";
import { REPLAY, type ReplayRow, type ReplayVerdict, type RowOutcome } from "./types";

/** A blank outcome for `n` compared tokens. */
export function blankOutcome(n: number, stat = Number.NaN, statAt = -1): RowOutcome {
  return { verdict: new Uint8Array(n), weight: new Float64Array(n), stat, statAt };
}

/** log r = log π_θ − log π_old of compared token j. */
export function logRatio(row: ReplayRow, j: number): number {
  return (row.a[j] as number) - (row.b[j] as number);
}

/** r of compared token j, exp of log r clamped to ±20 (verl's SAFETY_BOUND). */
export function ratio(row: ReplayRow, j: number): number {
  return safeExp(logRatio(row, j));
}

/** Sets token j of `o`. */
export function mark(o: RowOutcome, j: number, verdict: ReplayVerdict, weight: number): void {
  (o.verdict as Uint8Array)[j] = verdict;
  (o.weight as Float64Array)[j] = weight;
}

/** Every token of a sequence-level decision: masked (weight 0) or kept with its own r. */
export function markSequence(o: RowOutcome, row: ReplayRow, isMasked: boolean): RowOutcome {
  for (let j = 0; j < row.a.length; j++) {
    if (isMasked) mark(o, j, REPLAY.masked, 0);
    else mark(o, j, REPLAY.kept, ratio(row, j));
  }
  return o;
}

/** Every token unchecked (the rule needs an advantage the row lacks). */
export function markUnchecked(o: RowOutcome): RowOutcome {
  (o.verdict as Uint8Array).fill(REPLAY.unchecked);
  (o.weight as Float64Array).fill(Number.NaN);
  return o;
}

/** Σ of log r over the compared tokens, and the mean. */
export function sumLogRatio(row: ReplayRow): number {
  let s = 0;
  for (let j = 0; j < row.a.length; j++) s += logRatio(row, j);
  return s;
}

/** A number for a reason string: 4 significant digits, exponent when tiny or huge. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  const abs = Math.abs(x);
  return abs < 1e-3 || abs >= 1e5 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

/** "A = 0.5 (recorded)" or "A = −0.3 (GRPO from the group's rewards)". */
export function advantageText(row: ReplayRow): string {
  if (row.advantage === undefined) return "no advantage";
  const from = row.advantageSource === "group" ? "GRPO from the group's rewards" : "recorded";
  return `A = ${fmt(row.advantage)} (${from})`;
}

export const NO_ADVANTAGE =
  "unchecked: the rule reads the advantage and this row carries none (no recorded advantage, no group with rewards)";

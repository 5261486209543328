import type { RowSummary } from "../files/rowSummary";
import { meanLogprobByPosition, type PositionBar } from "./positionSeries";

/** One histogram bar over [start, end) (the last bar includes its end). */
export interface HistogramBin {
  readonly start: number;
  readonly end: number;
  readonly count: number;
  /** Short axis label, e.g. `0.5` or `12k`. */
  readonly label: string;
}

/** Compact number label for axes: 1234 → `1.2k`, 0.25 → `0.25`. */
export function shortNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${+(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${+(value / 1e3).toFixed(1)}k`;
  return `${+value.toFixed(2)}`;
}

/**
 * Equal-width histogram of the finite values (units of the values) in at most `maxBins` bars.
 * Integer data gets integer-aligned bins; a single distinct value gets one bar.
 */
export function histogram(
  values: readonly (number | undefined)[],
  maxBins = 20,
  integer = false,
): HistogramBin[] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v === undefined || !Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return [];
  if (min === max)
    return [{ start: min, end: max, count: countOf(values), label: shortNumber(min) }];
  let width = (max - min) / maxBins;
  if (integer) width = Math.max(1, Math.ceil(width));
  const bins = Math.max(
    1,
    Math.min(maxBins, Math.ceil((max - min) / width + (integer ? 1e-9 : 0))),
  );
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) {
    if (v === undefined || !Number.isFinite(v)) continue;
    const b = Math.min(bins - 1, Math.floor((v - min) / width));
    counts[b] = (counts[b] ?? 0) + 1;
  }
  return counts.map((count, b) => {
    const start = min + b * width;
    return { start, end: b === bins - 1 ? max : start + width, count, label: shortNumber(start) };
  });
}

function countOf(values: readonly (number | undefined)[]): number {
  return values.filter((v) => v !== undefined && Number.isFinite(v)).length;
}

/** One bar of a category count chart. */
export interface CategoryCount {
  readonly key: string;
  readonly count: number;
}

/** Counts rows per category (missing → `none`), largest first, ties by name. */
export function categoryCounts(keys: readonly (string | undefined)[]): CategoryCount[] {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k ?? "none", (counts.get(k ?? "none") ?? 0) + 1);
  return [...counts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** The chart series of a set of rows: reward, length and turn histograms, status and finish counts, logprob by position. */
export interface RolloutSeries {
  readonly reward: HistogramBin[];
  readonly totalTokens: HistogramBin[];
  readonly trainableTokens: HistogramBin[];
  readonly status: CategoryCount[];
  readonly finishReason: CategoryCount[];
  /** Model turns per episode (integer bins). */
  readonly turns: HistogramBin[];
  /** Mean trainable-token logprob per token-position bucket. */
  readonly logprobByPosition: PositionBar[];
}

/**
 * A count that needs token ids, or undefined for a row that records none (text only: verl's
 * rollout_data_dir, a text table, Tinker's summaries): its 0 tokens and 0 turns are "not recorded".
 */
export function idCount(row: RowSummary, count: number): number | undefined {
  return row.totalTokens > 0 ? count : undefined;
}

/** Prepares every chart series of the rows at `indices` (0-based positions in `rows`). */
export function rolloutSeries(
  rows: readonly RowSummary[],
  indices: readonly number[],
): RolloutSeries {
  const picked = indices.flatMap((i) => {
    const row = rows[i];
    return row ? [row] : [];
  });
  return {
    reward: histogram(
      picked.map((r) => r.reward),
      20,
    ),
    totalTokens: histogram(
      picked.map((r) => idCount(r, r.totalTokens)),
      20,
      true,
    ),
    trainableTokens: histogram(
      picked.map((r) => idCount(r, r.trainableTokens)),
      20,
      true,
    ),
    status: categoryCounts(picked.map((r) => r.status)),
    finishReason: categoryCounts(picked.map((r) => r.finishReason)),
    turns: histogram(
      picked.map((r) => idCount(r, r.turns)),
      20,
      true,
    ),
    logprobByPosition: meanLogprobByPosition(picked.map((r) => r.logprobByPosition)),
  };
}

import type { LanePairCount } from "./fileMismatch";

/** What a file scan's charts call lanes a and b (δ = a − b), from the pairs the scan compared. */
export interface LaneLabels {
  readonly a: string;
  readonly b: string;
  /** Set when the trajectories compared different pairs: which, and how many rows each. */
  readonly mixed?: string;
}

/**
 * The lanes' names when every trajectory compared the same pair (`trainer` − `sampled`, or the
 * picker's); "lane a"/"lane b" with the list of pairs when rows compared different ones; never a
 * name the scan did not compare.
 */
export function laneLabels(pairs: readonly LanePairCount[]): LaneLabels {
  const [only, ...others] = pairs;
  if (only === undefined) return { a: "lane a", b: "lane b" };
  if (others.length === 0) return { a: only.a, b: only.b };
  const listed = pairs
    .map((p) => `${p.a} − ${p.b} (${p.rows} ${p.rows === 1 ? "row" : "rows"})`)
    .join(", ");
  return { a: "lane a", b: "lane b", mixed: `lanes differ by row: ${listed}` };
}

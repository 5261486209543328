import type { Trajectory } from "./types";

/** Every id named among the trajectory's top-k alternatives, distinct and ascending. */
export function topLogprobIds(trajectory: Trajectory): number[] {
  const ids = new Set<number>();
  for (const segment of trajectory.segments) {
    for (const alternatives of segment.topLogprobs ?? []) {
      for (const alt of alternatives ?? []) ids.add(alt.tokenId);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

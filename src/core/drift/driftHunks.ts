import type { DriftResult } from "./types";

/**
 * One column of the two-lane diff: a token both sides share (`t` its recorded token index, `r` its
 * rebuilt token index), or a whole drift region (`region` indexes `DriftResult.regions`).
 */
export type LaneColumn =
  | { readonly kind: "same"; readonly t: number; readonly r: number; readonly id: number }
  | { readonly kind: "region"; readonly region: number };

/** Regions close enough to share their context, shown as one strip. Token indices (recorded). */
export interface DriftHunk {
  readonly regions: readonly number[];
  readonly columns: readonly LaneColumn[];
  /** Recorded token range [start, end) the hunk covers, context included. */
  readonly t: readonly [number, number];
}

/**
 * Groups the regions of `result` into hunks with up to `context` shared tokens either side.
 * Outside regions both sides hold the same tokens (the aligner cuts where both sides have a token
 * boundary in equal bytes), so a shared token's rebuilt index is its recorded index plus the
 * length deltas of the regions before it.
 */
export function driftHunks(
  result: DriftResult,
  recordedIds: readonly number[],
  context: number,
): DriftHunk[] {
  const hunks: DriftHunk[] = [];
  let columns: LaneColumn[] = [];
  let regionsOfHunk: number[] = [];
  let hunkStart = 0;
  // Recorded index up to which shared tokens are already in `columns`, and the delta there.
  let at = 0;
  let delta = 0;
  const pushSame = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      columns.push({ kind: "same", t: i, r: i + delta, id: recordedIds[i] ?? 0 });
    }
  };
  const close = () => {
    if (regionsOfHunk.length === 0) return;
    const end = Math.min(recordedIds.length, at + context);
    pushSame(at, end);
    hunks.push({ regions: regionsOfHunk, columns, t: [hunkStart, end] });
    columns = [];
    regionsOfHunk = [];
  };
  result.regions.forEach((region, k) => {
    const [t0, t1] = region.t;
    if (regionsOfHunk.length > 0 && t0 - at > 2 * context) close();
    if (regionsOfHunk.length === 0) {
      hunkStart = Math.max(at, t0 - context);
      pushSame(hunkStart, t0);
    } else {
      pushSame(at, t0);
    }
    columns.push({ kind: "region", region: k });
    regionsOfHunk.push(k);
    at = t1;
    delta += region.delta;
  });
  close();
  return hunks;
}

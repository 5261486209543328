import type { EqualRun } from "./byteDiff";

/**
 * One place where the two token sequences disagree: tokens `t:[i0, i1)` of the recorded side
 * and `r:[j0, j1)` of the rebuilt side cover the same stretch of text. `isLossy` when the bytes
 * themselves differ there (a byte-diff hunk lies inside), not only their segmentation.
 */
export interface AlignedRegion {
  readonly i0: number;
  readonly i1: number;
  readonly j0: number;
  readonly j1: number;
  readonly isLossy: boolean;
}

/** A point where both sides have a token boundary at corresponding bytes; `run` = equal run index. */
interface Cut {
  readonly i: number;
  readonly j: number;
  readonly run: number;
}

/**
 * Aligns two token sequences by BYTE offsets, never by index: `tOffsets`/`rOffsets` are the
 * cumulative byte offsets of each side (length = tokens + 1), `runs` the equal byte runs between
 * them (from `byteEqualRuns`). A two-pointer walk finds every "cut" where both sides have a token
 * boundary at the same place of an equal run; the stretch between two consecutive cuts is clean
 * when it is one identical token on each side inside one run, else it is a region. Hunks (bytes
 * only one side has) are atomic, so a region grows until both sides reach equal bytes again.
 */
export function alignByBytes(
  tIds: ArrayLike<number>,
  tOffsets: ArrayLike<number>,
  rIds: ArrayLike<number>,
  rOffsets: ArrayLike<number>,
  runs: readonly EqualRun[],
): AlignedRegion[] {
  const nT = tIds.length;
  const nR = rIds.length;
  const cuts: Cut[] = [];
  const first = runs[0];
  cuts.push({ i: 0, j: 0, run: first && first.x === 0 && first.y === 0 ? 0 : -1 });
  let i = 0;
  let j = 0;
  runs.forEach((run, index) => {
    while (i <= nT && (tOffsets[i] ?? 0) < run.x) i++;
    while (j <= nR && (rOffsets[j] ?? 0) < run.y) j++;
    while (i <= nT && j <= nR) {
      const dt = (tOffsets[i] ?? 0) - run.x;
      const dr = (rOffsets[j] ?? 0) - run.y;
      if (dt > run.length || dr > run.length) break;
      if (dt === dr) {
        const last = cuts[cuts.length - 1];
        if (!last || last.i !== i || last.j !== j) cuts.push({ i, j, run: index });
        // The run's end may also start the next run (a pure insertion or deletion follows).
        if (dt === run.length) break;
        i++;
        j++;
      } else if (dt < dr) i++;
      else j++;
    }
  });
  const last = cuts[cuts.length - 1];
  if (!last || last.i !== nT || last.j !== nR) cuts.push({ i: nT, j: nR, run: runs.length });

  const regions: AlignedRegion[] = [];
  for (let c = 1; c < cuts.length; c++) {
    const a = cuts[c - 1];
    const b = cuts[c];
    if (!a || !b) continue;
    const isLossy = a.run !== b.run || a.run < 0;
    const isClean = !isLossy && b.i - a.i === 1 && b.j - a.j === 1 && tIds[a.i] === rIds[a.j];
    if (!isClean) regions.push({ i0: a.i, i1: b.i, j0: a.j, j1: b.j, isLossy });
  }
  return regions;
}

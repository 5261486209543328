import type { ColumnMapping } from "../formats/columnMapping";
import { trajectoryIdsAbsentReason } from "../formats/idsAbsent";
import { readRolloutLineLanes, readRolloutValue } from "../formats/readRolloutLine";
import type { FormatId } from "../formats/types";
import { hasSampledLogprobs, laneValues, SAMPLED_LANE } from "../trajectory/lanes";
import type { LaneValues, Trajectory } from "../trajectory/types";
import { chartRow, rowScratchOf } from "./chartScan";
import {
  addDecomposition,
  addUnknownRow,
  emptyDecompositionCharts,
  type RowDecomposition,
} from "./decompositionCharts";
import { trajectoryDecomposition, unknownRowCounts } from "./decompositionInputs";
import { type Correction, comparedStats, correction, type MismatchStats } from "./mismatch";
import {
  countLanePair,
  emptyCharts,
  type MismatchCharts,
  type RowMismatch,
} from "./mismatchCharts";
import { gatherRow, gatherWire } from "./rowScratch";
import { defaultLanes, trajectoryMismatch } from "./trajectoryMismatch";

export { kthSmallest, samplePriority } from "./chartSample";
export { finishCharts, mergeCharts } from "./chartScan";
export {
  countLanePair,
  emptyCharts,
  HIST_BINS,
  HIST_SPAN,
  HIST_WIDTH,
  histogramBin,
  type LanePairCount,
  type MismatchBucket,
  type MismatchCharts,
  type MismatchToken,
  PROB_BUCKETS,
  positionBucket,
  positionBucketStart,
  probBucketExact,
  probBucketOfLog,
  type RowMismatch,
  SCATTER_POINTS,
  WORST_TOKENS,
} from "./mismatchCharts";

/*
 * A file's training–inference mismatch scan (docs/mismatch.md, "File-wide"): each line or record
 * read into trajectories (or straight into lanes), each trajectory's row summary kept and its
 * compared tokens charted file-wide. One scan per file (or per byte range of it, merged), used
 * alike by the browser's scan workers and `rollout-lens mismatch --json`. The charts' shape is in
 * mismatchCharts.ts, their filling and merging in chartScan.ts; this module is the scan's entry.
 */

/**
 * One pass over a trajectory's trained tokens comparing lane `a` (π_train) with lane `b`
 * (π_rollout): every compared token goes into `charts`, and the row's summary comes back (the
 * same numbers computeMismatch gives, without its per-token arrays: a file scan keeps only
 * these). `a`/`b` undefined means the segments' own sampled logprobs. `row`, `line`: where the
 * trajectory is in the file.
 */
export function addToCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  a: LaneValues | undefined,
  b: LaneValues | undefined,
  c: Correction,
): RowMismatch {
  return chartRow(charts, gatherRow(rowScratchOf(charts), t, a, b), row, line, c);
}

/** What a file scan compares: two lanes (or each trajectory's default) under one correction. */
export interface MismatchScanOptions {
  readonly lanes?: readonly [string, string] | undefined;
  readonly correction?: Correction | undefined;
}

/** A file's mismatch scan so far; `rows` by row index from `firstRow` (undefined: no lanes). */
export interface FileMismatchScan {
  format: FormatId | undefined;
  readonly rows: (RowMismatch | undefined)[];
  lines: number;
  badLines: number;
  charts: MismatchCharts;
}

export function createFileMismatchScan(): FileMismatchScan {
  return { format: undefined, rows: [], lines: 0, badLines: 0, charts: emptyCharts() };
}

/** The row of a trajectory's statistics, as the table shows it. */
export function rowMismatchOf(s: MismatchStats): RowMismatch {
  return {
    compared: s.compared,
    maxAbsDelta: s.maxAbsDelta,
    meanAbsDelta: s.meanAbsDelta,
    fractionCorrected: s.fractionCorrected,
  };
}

/** Lane `name` of `t` for addToCharts: undefined for the sampled logprobs, null when absent. */
function laneFor(t: Trajectory, name: string): LaneValues | undefined | null {
  return name === SAMPLED_LANE ? undefined : (laneValues(t, name) ?? null);
}

/** Why `t` has no two lanes to compare: one lane only, no logprobs, or text only (no ids). */
function noLanesReason(t: Trajectory): string {
  if (hasSampledLogprobs(t)) return "no lane besides sampled";
  // A text-only row (a CSV export, verifiers' results) has no tokens for a logprob to be of.
  if (trajectoryIdsAbsentReason(t) !== undefined)
    return "no logprobs at all: a text-only row (no token ids)";
  return "no logprobs at all: no sampled (inference) logprobs and no other lane";
}

/** A trajectory charted (its compared tokens left gathered in the row scratch), or why not. */
type Charted =
  | {
      ok: true;
      lanes: readonly [string, string];
      summary: RowMismatch;
      a: LaneValues | undefined;
      b: LaneValues | undefined;
    }
  | { ok: false; reason: string };

/**
 * One trajectory (file row `row`, line `line`) gathered once into the charts' row scratch and
 * charted: its lanes and summary, or why it has none (no lane besides sampled, or not the lanes
 * asked for).
 */
function chartLanes(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  options: MismatchScanOptions,
): Charted {
  const lanes = options.lanes ?? defaultLanes(t);
  if (!lanes) return { ok: false, reason: noLanesReason(t) };
  const a = laneFor(t, lanes[0]);
  const b = laneFor(t, lanes[1]);
  if (a === null || b === null) {
    const out = trajectoryMismatch(t, lanes, options.correction ?? DEFAULT_CORRECTION);
    return { ok: false, reason: out.ok ? "no such lane" : out.message };
  }
  const c = options.correction ?? DEFAULT_CORRECTION;
  countLanePair(charts.lanePairs, lanes[0], lanes[1]);
  return { ok: true, lanes, summary: addToCharts(charts, t, row, line, a, b, c), a, b };
}

/**
 * One trajectory (file row `row`, line `line`) added to `charts`: its row summary, or why it has
 * none (no lane besides sampled, or not the lanes asked for).
 */
export function rowIntoCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  options: MismatchScanOptions,
):
  | { ok: true; lanes: readonly [string, string]; row: RowMismatch }
  | { ok: false; reason: string } {
  const out = chartLanes(charts, t, row, line, options);
  if (!out.ok) return out;
  const decomposition = decomposeRow(charts, t, out.lanes, out.summary);
  return { ok: true, lanes: out.lanes, row: { ...out.summary, decomposition } };
}

const DEFAULT_CORRECTION = correction("token-trunc");

/** The row's decomposition into the charts: counted alone when no term can be known. */
function decomposeRow(
  charts: MismatchCharts,
  t: Trajectory,
  lanes: readonly [string, string],
  summary: RowMismatch,
): RowDecomposition {
  charts.decomposition ??= emptyDecompositionCharts();
  const into = charts.decomposition;
  const unknown = unknownRowCounts(t, lanes, summary.compared);
  if (unknown) return addUnknownRow(into, summary.compared, unknown.unknownSupport);
  const split = trajectoryDecomposition(t, lanes);
  return split.ok ? addDecomposition(into, split.result) : addUnknownRow(into, summary.compared);
}

/**
 * The segment ends of `t` when its lanes and segments are the trajectory's length, as the
 * readers keep them (core/trajectory/invariants.ts); undefined for one that is not, whose
 * statistics trajectoryMismatch computes (and refuses) as it always has.
 */
function segmentEndsOf(
  t: Trajectory,
  a: LaneValues | undefined,
  b: LaneValues | undefined,
): number[] | undefined {
  const ends: number[] = [];
  let total = 0;
  for (const seg of t.segments) {
    const n = seg.lossMask.length;
    if (seg.tokenIds.length !== n || seg.logprobs.length !== n) return undefined;
    total += n;
    ends.push(total);
  }
  if ((a && a.length !== total) || (b && b.length !== total)) return undefined;
  return ends;
}

/**
 * rowIntoCharts with the trajectory's full statistics (computeMismatch's), as
 * `rollout-lens mismatch --json` prints them: the tokens gathered once for the charts feed the
 * statistics too (comparedStats), bit for bit what trajectoryMismatch gives.
 */
export function mismatchIntoCharts(
  charts: MismatchCharts,
  t: Trajectory,
  row: number,
  line: number,
  options: MismatchScanOptions,
):
  | {
      ok: true;
      lanes: readonly [string, string];
      stats: MismatchStats;
      decomposition: RowDecomposition | undefined;
    }
  | { ok: false; reason: string } {
  const into = chartLanes(charts, t, row, line, options);
  if (!into.ok) return into;
  // Lanes that share no trained token compare nothing: not compared, never a clean row.
  if (into.summary.compared === 0) {
    const [a, b] = into.lanes;
    return {
      ok: false,
      reason: `nothing compared: no trained token has a logprob in both ${a} and ${b}`,
    };
  }
  const c = options.correction ?? DEFAULT_CORRECTION;
  const ends = segmentEndsOf(t, into.a, into.b);
  let stats: MismatchStats;
  if (ends) {
    const scratch = rowScratchOf(charts);
    const n = into.summary.compared;
    const total = ends[ends.length - 1] ?? 0;
    stats = comparedStats(scratch, { n, trained: scratch.trained, total, ends }, c);
  } else {
    const out = trajectoryMismatch(t, into.lanes, c);
    if (!out.ok) return { ok: false, reason: out.message };
    stats = out.result.stats;
  }
  const decomposition = decomposeRow(charts, t, into.lanes, into.summary);
  return { ok: true, lanes: into.lanes, stats, decomposition };
}

/**
 * Scans one line (1-based `lineNo`, trailing `\r` dropped) into `scan`, its first trajectory at
 * file row `firstRow + scan.rows.length`. Bad and blank lines add no row, as in the file index;
 * with a column `mapping`, each line is read through it, as the index reads it.
 */
export function scanMismatchLine(
  scan: FileMismatchScan,
  text: string,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  path?: string,
  mapping?: ColumnMapping,
): void {
  scan.lines = lineNo;
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  const result = readRolloutLineLanes(clean, lineNo, scan.format, path, options.lanes, mapping);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  if (result.kind === "lanes") {
    const c = options.correction ?? DEFAULT_CORRECTION;
    for (const lanes of result.rows) {
      const row = firstRow + scan.rows.length;
      countLanePair(scan.charts.lanePairs, result.lanes[0], result.lanes[1]);
      const n = gatherWire(rowScratchOf(scan.charts), lanes);
      const summary = chartRow(scan.charts, n, row, lineNo, c);
      scan.charts.decomposition ??= emptyDecompositionCharts();
      const decomposition = addUnknownRow(scan.charts.decomposition, summary.compared);
      scan.rows.push({ ...summary, decomposition });
    }
    return;
  }
  addTrajectoryRows(scan, result.trajectories, lineNo, firstRow, options);
}

/**
 * scanMismatchLine for a record already parsed: a Parquet row or one document of a JSON file, as
 * core/files/recordIndexer.ts reads them (record r is line r + 1, read through the table's column
 * `mapping` when it has one), so the rows match the table's.
 */
export function scanMismatchRecord(
  scan: FileMismatchScan,
  value: unknown,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  path?: string,
  mapping?: ColumnMapping,
): void {
  scan.lines = lineNo;
  const result = readRolloutValue(value, lineNo, scan.format, path, mapping);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  addTrajectoryRows(scan, result.trajectories, lineNo, firstRow, options);
}

/** A line's trajectories into the scan: one row each (undefined when it has no lanes to compare). */
function addTrajectoryRows(
  scan: FileMismatchScan,
  trajectories: readonly Trajectory[],
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
): void {
  for (const t of trajectories) {
    const row = firstRow + scan.rows.length;
    const out = rowIntoCharts(scan.charts, t, row, lineNo, options);
    scan.rows.push(out.ok ? out.row : undefined);
  }
}

import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { FormatId, LineError } from "../../src/core/formats/types";
import type { CorrectionChoice } from "../../src/core/mismatch/corrections/registry";
import type { ReplaySummary } from "../../src/core/mismatch/corrections/replay";
import { replayCollector } from "../../src/core/mismatch/corrections/replayRows";
import type { RowDecomposition } from "../../src/core/mismatch/decompositionCharts";
import {
  emptyCharts,
  finishCharts,
  type MismatchCharts,
  mismatchIntoCharts,
} from "../../src/core/mismatch/fileMismatch";
import type { Correction, MismatchStats } from "../../src/core/mismatch/mismatch";
import { type FileMismatchStats, mismatchTotals } from "../../src/core/mismatch/trajectoryMismatch";
import type { ShardedInput } from "../commands/shardInputs";
import type { FileShard } from "../drift/driftFile";
import { readRecords, rolloutFileHead } from "../files/readLines";

/** One trajectory's statistics, as `mismatch --json` prints them. */
export interface TrajectoryMismatchReport {
  readonly id: string;
  readonly line: number;
  readonly row: number;
  readonly lanes: readonly [string, string];
  readonly stats: MismatchStats;
  /** Where its mismatch comes from (docs/mismatch.md "Decomposition"): verdict, mean |terms|. */
  readonly decomposition?: RowDecomposition;
}

/** What `mismatch` compares: the correction replayed, and two lanes or each trajectory's default. */
export interface MismatchUnitOptions {
  readonly correction: Correction;
  readonly lanes?: readonly [string, string];
  /** Read every line through this column mapping (`--map`). */
  readonly mapping?: ColumnMapping;
  /** The corrections of `--correction` replayed over the unit as one batch (the what-if table's). */
  readonly choices?: readonly CorrectionChoice[];
}

/** A file's (or a shard's byte range's) mismatch, but its trajectories (passed on as they come). */
export interface MismatchUnitDone {
  readonly path: string;
  readonly format: FormatId | null;
  /** Trajectories without the lanes asked for, with why. */
  readonly skipped: { id: string; line: number; reason: string }[];
  readonly errors: LineError[];
  readonly summary: FileMismatchStats;
  /** The file-wide histogram of r, probability sample, buckets and worst tokens (as the app's). */
  readonly charts: MismatchCharts;
  /** Trajectories read (compared or skipped): the row numbers the charts' tokens count in. */
  readonly rows: number;
  /**
   * Each correction of `--correction` replayed over the unit as one batch. Over a shard's byte
   * range only (batch rules such as M2PO decide within it): `merge-reports` does not join them.
   */
  readonly replays: readonly ReplaySummary[];
  readonly shard?: FileShard;
  readonly readError?: string;
  /**
   * "record" when the file is a table or document (Parquet, CSV, torch.save, JSON, YAML): each
   * `line` above is its record's number, not a line of the file's text (as `validate` says).
   */
  readonly unit?: "record";
}

/** Trajectories passed on together (`onRows`): few enough to stream, enough to amortize a message. */
const ROWS_PER_PART = 256;

/**
 * Reads a unit (a file, or the lines starting in its shard's byte range, numbered as in the file)
 * and computes the mismatch of every trajectory: each compared one goes to `onRows` in file
 * order, in groups, so nothing but the totals and charts is held. A later byte range is read
 * with the format of the file's first valid line, as one run over the whole file reads it; its
 * charts count rows from the range's first trajectory (`merge-reports` shifts them).
 */
export async function mismatchUnit(
  { path, shard }: ShardedInput,
  options: MismatchUnitOptions,
  onRows: (rows: TrajectoryMismatchReport[]) => void,
): Promise<MismatchUnitDone> {
  let format: FormatId | undefined;
  const skipped: MismatchUnitDone["skipped"] = [];
  const errors: LineError[] = [];
  const charts = emptyCharts();
  const totals = mismatchTotals();
  const { mapping, lanes, correction, choices = [] } = options;
  // Rows are kept for the replays only when some are asked for (the MCP server's check_mismatch asks only with `replay`).
  const collector = choices.length > 0 ? replayCollector(lanes) : undefined;
  let readError: string | undefined;
  let unit: "record" | undefined;
  let row = 0;
  let part: TrajectoryMismatchReport[] = [];
  try {
    if (shard !== undefined && shard.start > 0) {
      format = (await rolloutFileHead(path, undefined, mapping)).format;
    }
    for await (const read of readRecords(path, { range: shard, format, mapping })) {
      const { lineNo, result } = read;
      if (read.isRecord) unit = "record";
      if (result.kind === "blank") continue;
      if (result.kind === "error") {
        errors.push(result.error);
        continue;
      }
      format ??= result.format;
      for (const t of result.trajectories) {
        // `row` counts the file's trajectories (the app's row index, the deep link's).
        collector?.add(t, row);
        const out = mismatchIntoCharts(charts, t, row++, lineNo, { lanes, correction });
        if (!out.ok) {
          skipped.push({ id: t.id, line: lineNo, reason: out.reason });
          continue;
        }
        totals.add(out.stats);
        const where = { id: t.id, line: lineNo, row: t.source.row ?? 0 };
        const split = out.decomposition ? { decomposition: out.decomposition } : {};
        part.push({ ...where, lanes: out.lanes, stats: out.stats, ...split });
        if (part.length >= ROWS_PER_PART) {
          onRows(part);
          part = [];
        }
      }
    }
  } catch (error) {
    readError = error instanceof Error ? error.message : String(error);
  }
  if (part.length > 0) onRows(part);
  return {
    ...{ path, format: format ?? null, skipped, errors, summary: totals.finish() },
    ...{ charts: finishCharts(charts), rows: row },
    replays: collector ? collector.finish(choices).replays.map((r) => r.summary) : [],
    ...(shard === undefined ? {} : { shard }),
    ...(readError === undefined ? {} : { readError }),
    ...(unit === undefined ? {} : { unit }),
  };
}

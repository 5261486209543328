import type { ColumnMapping } from "../formats/columnMapping";
import { readRolloutLine, readRolloutValue } from "../formats/readRolloutLine";
import type { FormatId } from "../formats/types";
import { createIdsFitCheck } from "../tokenizer/idsFit";
import { type RoundTripPath, roundTripPlanFor } from "../tokenizer/roundTripPlan";
import type { Tokenizer } from "../tokenizer/types";
import type { Trajectory } from "../trajectory/types";
import type { DriftGate } from "./driftInputs";
import { checkTrajectoryDrift, reasonOfUnchecked } from "./driftRules";
import { type RowDrift, rowDriftOf } from "./rowDrift";
import type { DriftMode, DriftResult } from "./types";

/** A file's drift check so far. `rows` is by row index: 0-based over every trajectory in order. */
export interface FileDriftScan {
  /** Fixed by the first good line, as the file indexer does, so row indices agree with its. */
  format: FormatId | undefined;
  readonly rows: (RowDrift | undefined)[];
  /** Lines seen (1-based number of the last one) and bad lines skipped. */
  lines: number;
  badLines: number;
  /** Rows the check could not run on (`rows[i]` undefined), by reason (core/drift/driftInputs). */
  unchecked: Record<string, number>;
  /** For a round-trip scan: which path ran, and why not the fast one when it did not. */
  roundTrip?: { readonly path: RoundTripPath; readonly reason?: string };
  /** Lines are read through this column mapping (a JSONL file no known producer wrote). */
  mapping?: ColumnMapping;
}

/** A fresh scan. */
export function createFileDriftScan(): FileDriftScan {
  return { format: undefined, rows: [], lines: 0, badLines: 0, unchecked: {} };
}

/** One trajectory's check: its result, or why it could not run. */
export type RowCheck = (t: Trajectory) => DriftResult | { readonly unchecked: string };

/**
 * The scan's tokenizer when it was chosen for the file (from its first trajectory, among `names`,
 * else `fallback`) rather than picked by the user: a record naming another one is then unchecked.
 */
export type ChosenTokenizer = NonNullable<DriftGate["chosen"]>;

/**
 * A scan of one mode with `tok`, ready for lines or records: its empty state (with the round-trip
 * path it will take) and its check of one trajectory. Every file scan starts here (browser drift
 * workers, byte ranges and record ranges alike). `chosen` is set when the tokenizer was chosen
 * for the file rather than picked (the CLI's rule for a record naming another one).
 */
export function startFileDriftScan(
  tok: Tokenizer,
  mode: DriftMode,
  format: FormatId | undefined,
  mapping?: ColumnMapping,
  chosen?: ChosenTokenizer,
): { state: FileDriftScan; checkOne: RowCheck } {
  const state = createFileDriftScan();
  state.format = format;
  if (mapping) state.mapping = mapping;
  const plan = roundTripPlanFor(tok);
  if (mode === "roundtrip") {
    state.roundTrip =
      plan.path === "fast" ? { path: "fast" } : { path: "exact", reason: plan.reason };
  }
  const { accelerator } = plan;
  const gate: DriftGate = {
    misfit: createIdsFitCheck(tok),
    ...(chosen ? { chosen } : {}),
  };
  const rules = { modes: [mode], gate };
  // The CLI's rules (driftRules.ts): no ids, too long, ids or record not the tokenizer's, no
  // input for the mode, or a check that failed.
  const checkOne: RowCheck = (t) => {
    const verdict = checkTrajectoryDrift(t, tok, rules, accelerator);
    if (verdict.unchecked.length > 0) return { unchecked: reasonOfUnchecked(verdict.unchecked) };
    return verdict.results[0] ?? { unchecked: `the ${mode} check gave no result` };
  };
  return { state, checkOne };
}

/**
 * Checks every trajectory of one line (1-based `lineNo`, trailing `\r` dropped) with `check`,
 * which answers why not when it cannot run on a record (the row is then undefined). Bad and blank lines add no
 * row, exactly as in `summarizeLine`, so the scan's row indices are the table's. A scan with a
 * column mapping reads the line through it, as the file index does.
 */
export function scanDriftLine(
  scan: FileDriftScan,
  text: string,
  lineNo: number,
  check: RowCheck,
  path?: string,
): void {
  scan.lines = lineNo;
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  addRows(scan, readRolloutLine(clean, lineNo, scan.format, path, scan.mapping), check);
}

/**
 * scanDriftLine for a record already parsed: a Parquet row or one document of a JSON file, as
 * core/files/recordIndexer.ts reads them (record r is line r + 1), so drift rows match the table's.
 */
export function scanDriftRecord(
  scan: FileDriftScan,
  value: unknown,
  lineNo: number,
  check: RowCheck,
  path?: string,
): void {
  scan.lines = lineNo;
  addRows(scan, readRolloutValue(value, lineNo, scan.format, path, scan.mapping), check);
}

function addRows(
  scan: FileDriftScan,
  result: ReturnType<typeof readRolloutLine>,
  check: RowCheck,
): void {
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  for (const t of result.trajectories) {
    const drift = check(t);
    if ("unchecked" in drift) {
      scan.unchecked[drift.unchecked] = (scan.unchecked[drift.unchecked] ?? 0) + 1;
      scan.rows.push(undefined);
    } else scan.rows.push(rowDriftOf(drift));
  }
}

/**
 * Merging the `--json` reports of `rollout-lens mismatch --shard I/N` runs into one report, as
 * one unsharded run prints it: every trajectory, skipped trajectory and bad line in line order,
 * the file's summary folded again from its trajectories, the charts merged with each byte
 * range's rows shifted by the trajectories before it. Pure: the CLI reads the files and prints.
 */
import {
  agreed,
  arrayField,
  byLine,
  checkRanges,
  checkShards,
  isObject,
  type Json,
  type NamedReport,
  numberField,
  type Part,
  partsByPath,
  place,
  sortedPaths,
} from "../files/shardReports";
import { emptyCharts, finishCharts, type MismatchCharts, mergeCharts } from "./fileMismatch";
import type { MismatchStats } from "./mismatch";
import { aggregateMismatch } from "./trajectoryMismatch";

/** The merged report (`{"scan": "mismatch", "correction", "files"}`) or why it cannot be made. */
export type MismatchMergeResult =
  | { readonly ok: true; readonly report: Json; readonly exitCode: number }
  | { readonly ok: false; readonly errors: string[] };

/** A part's charts with every token's row moved `by` rows on (the rows before its byte range). */
function shiftedCharts(part: Part, by: number, errors: string[]): MismatchCharts | undefined {
  const charts = part.file.charts;
  if (!isObject(charts) || !Array.isArray(charts.worst) || !Array.isArray(charts.scatter)) {
    errors.push(`${part.from}: ${String(part.file.path)}: "charts" is not a mismatch chart set`);
    return undefined;
  }
  // A parsed report's charts are the JSON of MismatchCharts (checked above where it matters).
  const c = JSON.parse(JSON.stringify(charts)) as MismatchCharts;
  const shift = (t: MismatchCharts["worst"][number]) => ({ ...t, row: t.row + by });
  return { ...c, worst: c.worst.map(shift), scatter: c.scatter.map(shift) };
}

/** The exit code of a merged file: 2 when something was not compared, else `failAbove`'s rule. */
function exitCodeOf(file: Json, failAbove: number | undefined): number {
  const summary = file.summary as { compared: number; fractionCorrected: number };
  const broken =
    file.read_error !== undefined ||
    (file.errors as unknown[]).length > 0 ||
    Number(file.unchecked) > 0 ||
    // A replayed correction that needs an advantage some row lacks did not run on it.
    (Array.isArray(file.replays) &&
      file.replays.some((r) => isObject(r) && Number(r.unchecked) > 0)) ||
    summary.compared === 0;
  if (broken) return 2;
  return failAbove !== undefined && summary.fractionCorrected > failAbove ? 1 : 0;
}

function mergeFile(path: string, parts: Part[], errors: string[]): Json {
  checkRanges(path, parts, errors);
  parts.sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0));
  const format = agreed(path, parts, "format", (f) => f.format, errors);
  const owner = new Map<string, Part>();
  const trajectories: Json[] = [];
  const skipped: Json[] = [];
  const bad: Json[] = [];
  const charts = emptyCharts();
  let rows = 0;
  let readError: unknown;
  for (const part of parts) {
    for (const t of arrayField(part, "trajectories", errors)) {
      const key = `${String(t.line)}#${String(t.row ?? 0)}`;
      const other = owner.get(key);
      if (other !== undefined && other.at !== part.at) {
        errors.push(
          `${path} ${place(t.line, t.row)} is reported by both ${other.from} and ${part.from}`,
        );
      }
      owner.set(key, part);
      trajectories.push(t);
    }
    skipped.push(...arrayField(part, "skipped", errors));
    bad.push(...arrayField(part, "errors", errors));
    const shifted = shiftedCharts(part, rows, errors);
    if (shifted) mergeCharts(charts, shifted);
    rows += numberField(part, "rows", errors);
    // `readError`: the key earlier reports wrote (read_error, as drift and validate write).
    readError ??= part.file.read_error ?? part.file.readError;
  }
  skipped.sort(byLine);
  bad.sort(byLine);
  // Folded again in file order, as one run over the file folds it.
  const summary = aggregateMismatch(trajectories.map((t) => t.stats as MismatchStats));
  // Replays are a batch over what one run read: a whole file's carry over; byte ranges' do not.
  const [only] = parts;
  const replays = parts.length === 1 && only?.range === undefined ? only?.file.replays : undefined;
  // "record": the file is a table or document, its `line`s are record numbers (one reader: all agree).
  const unit = parts.find((p) => p.file.unit === "record")?.file.unit;
  return {
    ...{ path, format: format ?? null, trajectories, skipped, errors: bad, summary },
    ...{ charts: finishCharts(charts), rows, unchecked: skipped.length },
    ...(replays === undefined ? {} : { replays }),
    ...(readError === undefined ? {} : { read_error: readError }),
    ...(unit === undefined ? {} : { unit }),
  };
}

/**
 * Merges `mismatch --json` shard reports: a file in several reports (byte ranges of one file)
 * becomes one entry; files are listed by path. Errors, each naming the reports: a malformed
 * report, a missing or repeated shard, byte ranges not covering a file exactly once, reports of
 * different corrections or formats, a trajectory (path, line, row) in two reports.
 */
export function mergeMismatchReports(
  reports: readonly NamedReport[],
  failAbove?: number,
): MismatchMergeResult {
  const errors: string[] = [];
  checkShards(reports, errors);
  const corrections = new Set(
    reports.map((r) => JSON.stringify(isObject(r.report) ? r.report.correction : null)),
  );
  if (corrections.size > 1) {
    errors.push(`the reports replay different corrections: ${[...corrections].join(", ")}`);
  }
  const byPath = partsByPath(reports, "a mismatch --json report", errors);
  const files = sortedPaths(byPath).map((path) => mergeFile(path, byPath.get(path) ?? [], errors));
  if (errors.length > 0) return { ok: false, errors };
  const first = reports[0]?.report;
  const correction = isObject(first) ? first.correction : null;
  const exitCode = Math.max(0, ...files.map((f) => exitCodeOf(f, failAbove)));
  return { ok: true, report: { scan: "mismatch", correction, files }, exitCode };
}

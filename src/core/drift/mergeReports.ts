/**
 * Merging the `--json` reports of `rollout-lens drift --shard I/N` runs into the report one
 * unsharded run would have printed. Pure: the CLI reads the files and prints.
 */
import {
  agreed,
  arrayField,
  byLine,
  checkRanges,
  checkShards,
  isObject,
  type NamedReport,
  numberField,
  type Part,
  partsByPath,
  place,
  sortedPaths,
} from "../files/shardReports";

export type { NamedReport } from "../files/shardReports";

/** What decides a file's drift exit code (docs/drift.md). */
export interface DriftCounts {
  readonly readError: boolean;
  readonly validLines: number;
  readonly badLines: number;
  readonly unchecked: number;
  readonly drifted: number;
  /** True for one byte range of a file: "no valid line" is judged on the merged report. */
  readonly partial: boolean;
}

/**
 * 2 = something was not checked (unreadable, no valid line, a bad line, an unchecked trajectory),
 * 1 = every trajectory was checked and some drift, 0 = checked and clean.
 */
export function driftExitCodeOf(c: DriftCounts): number {
  if (c.readError || (c.validLines === 0 && !c.partial) || c.badLines > 0 || c.unchecked > 0) {
    return 2;
  }
  return c.drifted > 0 ? 1 : 0;
}

type Json = Record<string, unknown>;

/** The merged report (`{"files": [...]}`, as `drift --json`) or why it cannot be made. */
export type MergeResult =
  | { readonly ok: true; readonly report: { files: Json[] }; readonly exitCode: number }
  | { readonly ok: false; readonly errors: string[] };

const COUNT_KEYS = ["checked", "unchecked", "drifted"] as const;

/** Adds a part's per-check counts (`modes`: {roundtrip: {checked, unchecked, drifted}, ...}). */
function addModeCounts(
  into: Record<string, { checked: number; unchecked: number; drifted: number }>,
  part: Part,
  errors: string[],
): void {
  const modes = part.file.modes;
  if (modes === undefined) return;
  if (!isObject(modes)) {
    errors.push(`${part.from}: ${String(part.file.path)}: "modes" must be an object`);
    return;
  }
  for (const [mode, counts] of Object.entries(modes)) {
    const sum = into[mode] ?? { checked: 0, unchecked: 0, drifted: 0 };
    for (const key of COUNT_KEYS) {
      const n = isObject(counts) ? counts[key] : undefined;
      if (typeof n === "number" && Number.isFinite(n)) sum[key] += n;
      else
        errors.push(
          `${part.from}: ${String(part.file.path)}: "modes.${mode}.${key}" must be a number`,
        );
    }
    into[mode] = sum;
  }
}

function mergeFile(path: string, parts: Part[], errors: string[]): Json {
  checkRanges(path, parts, errors);
  parts.sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0));
  // The tokenizer and its reason, the round trip: the earliest part's (where an unsharded run
  // chose them), after checking the parts agree on the name and path.
  agreed(path, parts, "format", (f) => f.format, errors);
  agreed(
    path,
    parts,
    "tokenizer",
    (f) => (isObject(f.tokenizer) ? f.tokenizer.name : null),
    errors,
  );
  agreed(
    path,
    parts,
    "round trip",
    (f) => (isObject(f.round_trip) ? f.round_trip.path : null),
    errors,
  );
  const first = <K extends string>(key: K) =>
    parts.map((p) => p.file[key]).find((v) => v !== undefined && v !== null);
  const owner = new Map<string, Part>();
  const claim = (part: Part, t: Json) => {
    const key = `${String(t.line)}#${String(t.row ?? 0)}`;
    const other = owner.get(key);
    if (other === undefined) owner.set(key, part);
    else if (other.at !== part.at) {
      errors.push(
        `${path} ${place(t.line, t.row)} is reported by both ${other.from} and ${part.from}`,
      );
    }
  };
  const results: Json[] = [];
  const unchecked: Json[] = [];
  const bad: Json[] = [];
  let validLines = 0;
  let trajectories = 0;
  let checked = 0;
  let drifted = 0;
  const modes: Record<string, { checked: number; unchecked: number; drifted: number }> = {};
  let badLines = 0;
  for (const part of parts) {
    addModeCounts(modes, part, errors);
    const own = {
      results: arrayField(part, "results", errors),
      unchecked: arrayField(part, "unchecked_trajectories", errors),
      errors: arrayField(part, "errors", errors),
    };
    for (const t of own.results) claim(part, t);
    for (const t of own.unchecked) claim(part, t);
    results.push(...own.results);
    unchecked.push(...own.unchecked);
    bad.push(...own.errors);
    // A report lists its first bad lines and counts them all (`bad_lines`).
    badLines += typeof part.file.bad_lines === "number" ? part.file.bad_lines : own.errors.length;
    validLines += numberField(part, "valid_lines", errors);
    trajectories += numberField(part, "trajectories", errors);
    checked += numberField(part, "checked", errors);
    drifted += numberField(part, "drifted", errors);
  }
  // Stable sorts: one trajectory's checks keep their order.
  results.sort(byLine);
  unchecked.sort(byLine);
  bad.sort((a, b) => Number(a.line) - Number(b.line));
  const readError = first("read_error");
  const merged: Json = {
    path,
    format: first("format") ?? null,
    tokenizer: first("tokenizer") ?? null,
    exit_code: driftExitCodeOf({
      readError: readError !== undefined,
      validLines,
      badLines,
      unchecked: unchecked.length,
      drifted,
      partial: false,
    }),
    valid_lines: validLines,
    trajectories,
    checked,
    unchecked: unchecked.length,
    drifted,
    ...(Object.keys(modes).length === 0 ? {} : { modes }),
    unchecked_trajectories: unchecked,
    errors: bad,
    bad_lines: badLines,
    ...(readError === undefined ? {} : { read_error: readError }),
    ...(first("round_trip") === undefined ? {} : { round_trip: first("round_trip") }),
    // "record": the file is a table or document, its `line`s are record numbers.
    ...(first("unit") === undefined ? {} : { unit: first("unit") }),
    results,
  };
  return merged;
}

/**
 * Merges shard reports: files of the same path from several reports (byte ranges of one file)
 * become one entry, counts summed and results, unchecked trajectories and bad lines in line
 * order; files are listed by path (code-unit order, as a directory is expanded). Errors: a
 * malformed report, a missing or repeated shard, a file's byte ranges not covering it exactly
 * once, shards that disagree on a file's format, tokenizer or round trip, and a trajectory
 * (path, line, row) reported twice — each naming the reports involved.
 */
export function mergeDriftReports(reports: readonly NamedReport[]): MergeResult {
  const errors: string[] = [];
  checkShards(reports, errors);
  const byPath = partsByPath(reports, "a drift --json report", errors);
  const paths = sortedPaths(byPath);
  const files = paths.map((path) => mergeFile(path, byPath.get(path) ?? [], errors));
  if (errors.length > 0) return { ok: false, errors };
  const exitCode = Math.max(0, ...files.map((f) => Number(f.exit_code)));
  return { ok: true, report: { files }, exitCode };
}

/**
 * Merging the `--json` reports of `rollout-lens drift --shard I/N` runs into the report one
 * unsharded run would have printed. Pure: the CLI reads the files and prints.
 */

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

/** One report as read, with the name it is reported under (its file path). */
export interface NamedReport {
  readonly name: string;
  readonly report: unknown;
}

type Json = Record<string, unknown>;

/** A file entry of a report, with where it came from. */
interface Part {
  /** The report's position among the inputs (the same file may be given twice). */
  readonly at: number;
  readonly from: string;
  readonly file: Json;
  readonly range?: { start: number; end: number; size: number };
}

/** The merged report (`{"files": [...]}`, as `drift --json`) or why it cannot be made. */
export type MergeResult =
  | { readonly ok: true; readonly report: { files: Json[] }; readonly exitCode: number }
  | { readonly ok: false; readonly errors: string[] };

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function place(line: unknown, row: unknown): string {
  return `line ${String(line)}${typeof row === "number" && row > 0 ? ` row ${row}` : ""}`;
}

function byLine(a: Json, b: Json): number {
  return Number(a.line) - Number(b.line) || Number(a.row ?? 0) - Number(b.row ?? 0);
}

/** The array field `key` of a file entry; pushes an error naming the report when it is not one. */
function arrayField(part: Part, key: string, errors: string[]): Json[] {
  const value = part.file[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isObject)) {
    errors.push(`${part.from}: ${String(part.file.path)}: "${key}" must be an array of objects`);
    return [];
  }
  return value;
}

function numberField(part: Part, key: string, errors: string[]): number {
  const value = part.file[key];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  errors.push(`${part.from}: ${String(part.file.path)}: "${key}" must be a number`);
  return 0;
}

/** The shards the reports say they are: each of 0..N-1 exactly once, or none named at all. */
function checkShards(reports: readonly NamedReport[], errors: string[]): void {
  const named = reports.flatMap(({ name, report }) => {
    const shard = isObject(report) ? report.shard : undefined;
    return isObject(shard)
      ? [{ name, index: Number(shard.index), count: Number(shard.count) }]
      : [];
  });
  if (named.length === 0) return;
  if (named.length < reports.length) {
    const plain = reports.filter((r) => !named.some((n) => n.name === r.name)).map((r) => r.name);
    errors.push(`${plain.join(", ")}: not a --shard report, but others are`);
  }
  const counts = [...new Set(named.map((n) => n.count))];
  if (counts.length > 1) {
    errors.push(`the reports come from different shardings: N = ${counts.join(", ")}`);
    return;
  }
  const count = counts[0] ?? 0;
  for (let index = 0; index < count; index++) {
    const these = named.filter((n) => n.index === index);
    if (these.length === 0) errors.push(`shard ${index}/${count} is missing`);
    if (these.length > 1) {
      errors.push(
        `shard ${index}/${count} is given twice: ${these.map((n) => n.name).join(" and ")}`,
      );
    }
  }
}

/** The byte ranges of one file's parts cover it once, from 0 to its size. */
function checkRanges(path: string, parts: readonly Part[], errors: string[]): void {
  const ranged = parts.filter((p) => p.range !== undefined);
  if (ranged.length === 0) {
    if (parts.length > 1) {
      errors.push(`${path} is reported whole by ${parts.map((p) => p.from).join(" and ")}`);
    }
    return;
  }
  if (ranged.length < parts.length) {
    errors.push(`${path} is reported both whole and by byte ranges`);
    return;
  }
  const sorted = [...ranged].sort((a, b) => (a.range?.start ?? 0) - (b.range?.start ?? 0));
  let at = 0;
  let previous: Part | undefined;
  const size = sorted[0]?.range?.size ?? 0;
  for (const part of sorted) {
    const range = part.range as { start: number; end: number; size: number };
    if (range.size !== size) {
      errors.push(`${path} has a different size in ${part.from} (${range.size} vs ${size} bytes)`);
    }
    if (range.start > at) errors.push(`${path}: bytes ${at}–${range.start} are in no report`);
    if (range.start < at) {
      errors.push(
        `${path}: bytes ${range.start}–${at} are in both ${previous?.from} and ${part.from}`,
      );
    }
    at = Math.max(at, range.end);
    previous = part;
  }
  if (at < size) errors.push(`${path}: bytes ${at}–${size} are in no report`);
}

/** The same value from every part that has one (null/absent skipped), or an error. */
function agreed(
  path: string,
  parts: readonly Part[],
  what: string,
  pick: (file: Json) => unknown,
  errors: string[],
): unknown {
  let found: { value: unknown; key: string; from: string } | undefined;
  for (const part of parts) {
    const value = pick(part.file);
    if (value === undefined || value === null) continue;
    const key = JSON.stringify(value);
    if (found === undefined) found = { value, key, from: part.from };
    else if (found.key !== key) {
      errors.push(
        `${path}: ${what} differs: ${found.key} in ${found.from}, ${key} in ${part.from}` +
          (what === "tokenizer" ? " (name one with --tokenizer in every shard)" : ""),
      );
    }
  }
  return found?.value ?? null;
}

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
  const byPath = new Map<string, Part[]>();
  for (const [at, { name, report }] of reports.entries()) {
    const files = isObject(report) ? report.files : undefined;
    if (!Array.isArray(files)) {
      errors.push(`${name}: not a drift --json report (no "files" array)`);
      continue;
    }
    files.forEach((file, k) => {
      if (!isObject(file) || typeof file.path !== "string") {
        errors.push(`${name}: files[${k}] has no "path"`);
        return;
      }
      const s = file.shard;
      const range = isObject(s)
        ? { start: Number(s.start), end: Number(s.end), size: Number(s.size) }
        : undefined;
      const parts = byPath.get(file.path) ?? [];
      parts.push({ at, from: name, file, ...(range ? { range } : {}) });
      byPath.set(file.path, parts);
    });
  }
  const paths = [...byPath.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files = paths.map((path) => mergeFile(path, byPath.get(path) ?? [], errors));
  if (errors.length > 0) return { ok: false, errors };
  const exitCode = Math.max(0, ...files.map((f) => Number(f.exit_code)));
  return { ok: true, report: { files }, exitCode };
}

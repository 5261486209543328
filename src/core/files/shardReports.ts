/**
 * What every scan's `merge-reports` shares (drift, mismatch, groups): the reports of
 * `--shard I/N` runs read as named JSON, their file entries by path, the shards and byte ranges
 * checked to cover the work exactly once. Pure: the CLI reads the files and prints.
 */

import { isRecord } from "../isRecord";

/** One report as read, with the name it is reported under (its file path). */
export interface NamedReport {
  readonly name: string;
  readonly report: unknown;
}

export type Json = Record<string, unknown>;

/** The one JSON-object guard, under the name the drift and mismatch merge-reports import. */
export { isRecord as isObject };

/** A file entry of a report, with where it came from. */
export interface Part {
  /** The report's position among the inputs (the same file may be given twice). */
  readonly at: number;
  readonly from: string;
  readonly file: Json;
  readonly range?: { start: number; end: number; size: number };
}

export function place(line: unknown, row: unknown): string {
  return `line ${String(line)}${typeof row === "number" && row > 0 ? ` row ${row}` : ""}`;
}

export function byLine(a: Json, b: Json): number {
  return Number(a.line) - Number(b.line) || Number(a.row ?? 0) - Number(b.row ?? 0);
}

/** The array field `key` of a file entry; pushes an error naming the report when it is not one. */
export function arrayField(part: Part, key: string, errors: string[]): Json[] {
  const value = part.file[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) {
    errors.push(`${part.from}: ${String(part.file.path)}: "${key}" must be an array of objects`);
    return [];
  }
  return value;
}

export function numberField(part: Part, key: string, errors: string[]): number {
  const value = part.file[key];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  errors.push(`${part.from}: ${String(part.file.path)}: "${key}" must be a number`);
  return 0;
}

/** The shards the reports say they are: each of 0..N-1 exactly once, or none named at all. */
export function checkShards(reports: readonly NamedReport[], errors: string[]): void {
  const named = reports.flatMap(({ name, report }) => {
    const shard = isRecord(report) ? report.shard : undefined;
    return isRecord(shard)
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
export function checkRanges(path: string, parts: readonly Part[], errors: string[]): void {
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
export function agreed(
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

/**
 * The file entries of every report, by path (several for byte ranges of one file), with where
 * each came from; pushes an error for a report with no "files" array (`what`: "a drift --json
 * report") or a file entry with no path.
 */
export function partsByPath(
  reports: readonly NamedReport[],
  what: string,
  errors: string[],
): Map<string, Part[]> {
  const byPath = new Map<string, Part[]>();
  for (const [at, { name, report }] of reports.entries()) {
    const files = isRecord(report) ? report.files : undefined;
    if (!Array.isArray(files)) {
      errors.push(`${name}: not ${what} (no "files" array)`);
      continue;
    }
    files.forEach((file, k) => {
      if (!isRecord(file) || typeof file.path !== "string") {
        errors.push(`${name}: files[${k}] has no "path"`);
        return;
      }
      const s = file.shard;
      const range = isRecord(s)
        ? { start: Number(s.start), end: Number(s.end), size: Number(s.size) }
        : undefined;
      const parts = byPath.get(file.path) ?? [];
      parts.push({ at, from: name, file, ...(range ? { range } : {}) });
      byPath.set(file.path, parts);
    });
  }
  return byPath;
}

/** Paths in code-unit order, as a directory is expanded. */
export function sortedPaths(byPath: ReadonlyMap<string, unknown>): string[] {
  return [...byPath.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

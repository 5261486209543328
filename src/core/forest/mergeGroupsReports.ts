/**
 * Merging the `--json` reports of `rollout-lens groups --shard I/N` runs into one report, as one
 * unsharded run prints it: files listed by path, and a file reported by several shards (one file
 * split by group key) has its groups joined in line order. Pure: the CLI reads and prints.
 */
import {
  agreed,
  arrayField,
  checkShards,
  type Json,
  type NamedReport,
  type Part,
  partsByPath,
  sortedPaths,
} from "../files/shardReports";
import { isRecord } from "../isRecord";

/** The merged report (`{"files"}`, as `groups --json`) or why it cannot be made. */
export type GroupsMergeResult =
  | { readonly ok: true; readonly report: Json; readonly exitCode: number }
  | { readonly ok: false; readonly errors: string[] };

/** True when every file entry of `report` lists groups: a `groups --json` report. */
export function isGroupsReport(report: unknown): boolean {
  const files = isRecord(report) ? report.files : undefined;
  return (
    Array.isArray(files) && files.length > 0 && files.every((f) => isRecord(f) && "groups" in f)
  );
}

function mergeFile(path: string, parts: readonly Part[], errors: string[]): Json {
  const format = agreed(path, parts, "format", (f) => f.format, errors);
  const owner = new Map<string, string>();
  const groups: Json[] = [];
  // Every key shard of a file reads all its lines: a bad line is in each of their reports.
  const bad = new Map<string, Json>();
  let readError: unknown;
  for (const part of parts) {
    for (const g of arrayField(part, "groups", errors)) {
      const id = String(g.id);
      const other = owner.get(id);
      if (other !== undefined) {
        errors.push(`${path}: group ${id} is reported by both ${other} and ${part.from}`);
      }
      owner.set(id, part.from);
      groups.push(g);
    }
    for (const e of arrayField(part, "errors", errors)) bad.set(JSON.stringify(e), e);
    // `readError`: the key earlier reports wrote (read_error, as drift and validate write).
    readError ??= part.file.read_error ?? part.file.readError;
  }
  // Stable: groups starting on one line keep the order their shard gave them.
  groups.sort((a, b) => Number(a.line) - Number(b.line));
  const lineErrors = [...bad.values()].sort((a, b) => Number(a.line) - Number(b.line));
  // "record": the file is a table or document, its `line`s are record numbers.
  const unit = parts.find((p) => p.file.unit === "record")?.file.unit;
  return {
    ...{ path, format: format ?? null, groups },
    ...(lineErrors.length > 0 ? { errors: lineErrors } : {}),
    ...(readError === undefined ? {} : { read_error: readError }),
    ...(unit === undefined ? {} : { unit }),
  };
}

/**
 * Merges `groups --json` shard reports. Errors, each naming the reports: a malformed report, a
 * missing or repeated shard, shards that read a file in different formats, a group in two
 * reports. Exit code: 2 when a file was unreadable or had a bad line, else 0 (the findings that
 * `--fail-on` turns into 1 are the groups command's to judge).
 */
export function mergeGroupsReports(reports: readonly NamedReport[]): GroupsMergeResult {
  const errors: string[] = [];
  checkShards(reports, errors);
  const byPath = partsByPath(reports, "a groups --json report", errors);
  const files = sortedPaths(byPath).map((path) => mergeFile(path, byPath.get(path) ?? [], errors));
  if (errors.length > 0) return { ok: false, errors };
  const isUnread = files.some(
    (f) => f.read_error !== undefined || f.errors !== undefined || f.format === null,
  );
  return { ok: true, report: { files }, exitCode: isUnread ? 2 : 0 };
}

import { readFile } from "node:fs/promises";
import { mergeDriftReports, type NamedReport } from "../../src/core/drift/mergeReports";
import { badLineText } from "../../src/core/files/errorLog";
import { isGroupsReport, mergeGroupsReports } from "../../src/core/forest/mergeGroupsReports";
import { mergeMismatchReports } from "../../src/core/mismatch/mergeMismatchReports";
import type { MergeReportsFlags, ParsedArgs } from "./commandFlags";
import { type CommandIo, processIo } from "./commandIo";
import { mergeReportsSpec, parseCommand } from "./spec";

/** `rollout-lens merge-reports REPORT... [--json]`. */
export async function mergeReportsCommand(
  args: string[],
  io: CommandIo = processIo,
): Promise<number> {
  const parsed = parseCommand<MergeReportsFlags>(mergeReportsSpec(), args, io);
  return typeof parsed === "number" ? parsed : runMergeReports(parsed, io);
}

type Json = Record<string, unknown>;

/** The human lines of one merged file: drifted checks, unchecked and bad lines, a summary. */
function humanLines(file: Json): string[] {
  const path = String(file.path);
  if (typeof file.read_error === "string") return [`${path}: cannot read: ${file.read_error}`];
  const lines: string[] = [];
  const at = (t: Json) => `${path}:${t.line}${Number(t.row) > 0 ? `#${t.row}` : ""} ${t.id}`;
  for (const r of (file.results ?? []) as Json[]) {
    if (r.first_divergence_index === null) continue;
    const regions = Array.isArray(r.regions) ? r.regions.length : 0;
    lines.push(
      `${at(r)} ${r.mode}: first divergence at token ${r.first_divergence_index}, ${regions} region(s), ` +
        `${r.trainable_tokens_affected} trainable token(s) affected (${r.len_tito} -> ${r.len_retok} tokens)`,
    );
  }
  for (const t of (file.unchecked_trajectories ?? []) as Json[]) {
    lines.push(`${at(t)} unchecked: ${t.reason}`);
  }
  const unit = unitOf(file);
  for (const e of (file.errors ?? []) as Json[]) {
    lines.push(`${path}: ${badLineText(e, unit)}`);
  }
  const checked = Number(file.checked);
  const drifted = Number(file.drifted);
  const share = checked === 0 ? 0 : (100 * drifted) / checked;
  lines.push(
    `${path}: ${file.format ?? "no readable records"}, ${file.trajectories} trajectories ` +
      `(${checked} checked, ${file.unchecked} unchecked), ${drifted} drifted ` +
      `(${share.toFixed(1)}% of checked), ${badText(file)}`,
  );
  return lines;
}

/** Which scan wrote a report: `mismatch` says so, a groups report lists groups, else drift. */
function scanOf(report: unknown): "drift" | "mismatch" | "groups" {
  const scan = typeof report === "object" && report !== null && "scan" in report;
  if (scan && (report as { scan: unknown }).scan === "mismatch") return "mismatch";
  return isGroupsReport(report) ? "groups" : "drift";
}

/** "N bad lines", or records for a table's or document's report (its `unit`). */
function badText(file: Json): string {
  return `${((file.errors ?? []) as unknown[]).length} bad ${unitOf(file)}s`;
}

const unitOf = (file: Json) => (file.unit === "record" ? "record" : "line");

/** The human lines of one merged mismatch file. */
function mismatchLines(file: Json): string[] {
  const path = String(file.path);
  if (typeof file.read_error === "string") return [`${path}: cannot read: ${file.read_error}`];
  const s = file.summary as Record<string, number>;
  const f = (x: number | undefined) => (x === undefined ? "?" : x.toFixed(4));
  return [
    `${path}: ${file.format ?? "no readable records"}, ${s.trajectories} trajectories ` +
      `(${file.unchecked} not compared): ${s.compared} tokens, mean|δ| ${f(s.meanAbsDelta)}, ` +
      `max|δ| ${f(s.maxAbsDelta)}, ${(100 * (s.fractionCorrected ?? 0)).toFixed(2)}% corrected, ` +
      badText(file),
  ];
}

/** The human lines of one merged groups file. */
function groupsLines(file: Json): string[] {
  const path = String(file.path);
  if (typeof file.read_error === "string") return [`${path}: cannot read: ${file.read_error}`];
  const groups = (file.groups ?? []) as Json[];
  const count = (p: (g: Json) => boolean) => groups.filter(p).length;
  const duplicates = count((g) => Array.isArray(g.duplicate_sets) && g.duplicate_sets.length > 0);
  const multiplicity = count((g) => Number((g.multiplicity as Json | undefined)?.tokens) > 0);
  return [
    `${path}: ${file.format ?? "no readable records"}, ${groups.length} groups: ` +
      `${count((g) => g.zero_variance === true)} zero-variance, ${duplicates} with duplicates, ` +
      `${multiplicity} with multiplicity, ${badText(file)}`,
  ];
}

/** The reports merged by their scan's rules, and how a merged file reads as text. */
function mergeByScan(reports: readonly NamedReport[], failAbove: number | undefined) {
  const scans = [...new Set(reports.map((r) => scanOf(r.report)))];
  if (scans.length > 1) {
    return {
      merged: {
        ok: false as const,
        errors: [`the reports come from different scans: ${scans.join(", ")}`],
      },
      lines: humanLines,
    };
  }
  if (scans[0] === "mismatch") {
    return { merged: mergeMismatchReports(reports, failAbove), lines: mismatchLines };
  }
  if (scans[0] === "groups") return { merged: mergeGroupsReports(reports), lines: groupsLines };
  return { merged: mergeDriftReports(reports), lines: humanLines };
}

/** Why a report file is not one: empty (its run wrote nothing) or not JSON (cut short?). */
function notJsonReport(text: string, error: unknown): string {
  if (text.trim() === "") {
    return "empty, not a --json report: did its drift, mismatch or groups run fail before writing?";
  }
  const why = error instanceof Error ? error.message : String(error);
  return `not a --json report (${why}): give the output of drift, mismatch or groups --json, whole`;
}

/**
 * Reads the `--json --shard I/N` reports of one scan (drift, mismatch or groups) and prints the
 * merged one (`--json`: as one unsharded run prints it). Exit code: the scan's rules on the
 * merged report; 2 when a report cannot be read or the reports do not merge (each reason
 * printed, naming the reports).
 */
export async function runMergeReports(
  { values, positionals }: ParsedArgs<MergeReportsFlags>,
  io: CommandIo = processIo,
): Promise<number> {
  if (positionals.length === 0) {
    io.err("merge-reports: give at least one REPORT (a drift, mismatch or groups --json output)");
    return 2;
  }
  const reports: NamedReport[] = [];
  let unreadable = false;
  for (const name of positionals) {
    let text: string;
    try {
      text = await readFile(name, "utf8");
    } catch (error) {
      io.err(`merge-reports: ${name}: ${error instanceof Error ? error.message : String(error)}`);
      unreadable = true;
      continue;
    }
    try {
      reports.push({ name, report: JSON.parse(text) });
    } catch (error) {
      io.err(`merge-reports: ${name}: ${notJsonReport(text, error)}`);
      unreadable = true;
    }
  }
  if (unreadable) return 2;
  const failAbove = values.failAbove === undefined ? undefined : Number(values.failAbove);
  if (failAbove !== undefined && !(failAbove >= 0)) {
    io.err(`merge-reports: --fail-above: expected a number >= 0, got "${values.failAbove}"`);
    return 2;
  }
  const { merged, lines } = mergeByScan(reports, failAbove);
  if (!merged.ok) {
    for (const error of merged.errors) io.err(`merge-reports: ${error}`);
    return 2;
  }
  if (values.json) io.out(JSON.stringify(merged.report));
  else
    for (const file of merged.report.files as Json[]) for (const line of lines(file)) io.out(line);
  return merged.exitCode;
}

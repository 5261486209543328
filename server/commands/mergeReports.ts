import { readFile } from "node:fs/promises";
import { mergeDriftReports, type NamedReport } from "../../src/core/drift/mergeReports";
import { type CommandIo, processIo } from "./commandIo";
import { type MergeReportsFlags, mergeReportsSpec, type ParsedArgs, parseCommand } from "./spec";

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
  for (const e of (file.errors ?? []) as Json[]) {
    lines.push(
      `${path}: line ${e.line}${e.field === undefined ? "" : ` [${e.field}]`}: ${e.message}`,
    );
  }
  const checked = Number(file.checked);
  const drifted = Number(file.drifted);
  const share = checked === 0 ? 0 : (100 * drifted) / checked;
  lines.push(
    `${path}: ${file.format ?? "no readable records"}, ${file.trajectories} trajectories ` +
      `(${checked} checked, ${file.unchecked} unchecked), ${drifted} drifted ` +
      `(${share.toFixed(1)}% of checked), ${((file.errors ?? []) as Json[]).length} bad lines`,
  );
  return lines;
}

/**
 * Reads the `drift --json --shard I/N` reports and prints the merged one (`--json`: as one
 * unsharded `drift --json` run prints it). Exit code: drift's rules on the merged report; 2 when
 * a report cannot be read or the reports do not merge (each reason printed, naming the reports).
 */
export async function runMergeReports(
  { values, positionals }: ParsedArgs<MergeReportsFlags>,
  io: CommandIo = processIo,
): Promise<number> {
  if (positionals.length === 0) {
    io.err("merge-reports: give at least one REPORT (a drift --json output)");
    return 2;
  }
  const reports: NamedReport[] = [];
  let unreadable = false;
  for (const name of positionals) {
    try {
      reports.push({ name, report: JSON.parse(await readFile(name, "utf8")) });
    } catch (error) {
      io.err(`merge-reports: ${name}: ${error instanceof Error ? error.message : String(error)}`);
      unreadable = true;
    }
  }
  if (unreadable) return 2;
  const merged = mergeDriftReports(reports);
  if (!merged.ok) {
    for (const error of merged.errors) io.err(`merge-reports: ${error}`);
    return 2;
  }
  if (values.json) io.out(JSON.stringify(merged.report));
  else for (const file of merged.report.files) for (const line of humanLines(file)) io.out(line);
  return merged.exitCode;
}

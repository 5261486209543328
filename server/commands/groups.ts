import { stableHash } from "../../src/core/files/shard";
import type { LocatedForest } from "../../src/core/forest/forestOf";
import { forestCollector } from "../../src/core/forest/forestOf";
import { DEFAULT_NEAR_K } from "../../src/core/forest/groupForest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { FormatId, LineError } from "../../src/core/formats/types";
import { readLines } from "../files/readLines";
import type { CommandIo } from "./commandIo";
import { shardInputs } from "./shardInputs";
import type { GroupsFlags, ParsedArgs } from "./spec";

/** The findings `--fail-on` can turn into exit code 1. */
export const GROUPS_FAIL_ON = ["duplicates", "zero-variance", "multiplicity"] as const;
type FailOn = (typeof GROUPS_FAIL_ON)[number];

/** What `groups` found in one file. */
export interface FileGroupsReport {
  readonly path: string;
  readonly format: FormatId | null;
  readonly groups: readonly LocatedForest[];
  readonly errors: readonly LineError[];
  readonly readError?: string;
}

/**
 * Reads `path` and builds the forest and forensics of every group in it. `keep` picks the groups
 * this shard reports (`--shard` on one file: by a hash of the group's key, so a group whose
 * members sit on lines far apart is never cut in two).
 */
export async function groupsOfFile(
  path: string,
  nearK: number,
  keep?: (key: string) => boolean,
): Promise<FileGroupsReport> {
  let format: FormatId | undefined;
  const errors: LineError[] = [];
  const collector = forestCollector({ nearK, isDetailed: false, keep });
  try {
    for await (const { lineNo, text } of readLines(path)) {
      const result = readRolloutLine(text, lineNo, format, path);
      if (result.kind === "blank") continue;
      if (result.kind === "error") {
        errors.push(result.error);
        continue;
      }
      format ??= result.format;
      collector.addLine(result.trajectories, result.format);
    }
  } catch (error) {
    const readError = error instanceof Error ? error.message : String(error);
    return { path, format: format ?? null, groups: [], errors, readError };
  }
  return { path, format: format ?? null, groups: collector.finish(), errors };
}

/** One group as `--json` prints it (docs/forest.md#the-command). */
export function groupJson(g: LocatedForest) {
  return {
    id: g.key,
    line: g.line,
    size: g.size,
    duplicate_sets: g.duplicateSets,
    zero_variance: g.zeroVariance,
    zero_variance_cause: g.zeroVarianceCause,
    branch_points: g.branchPoints.map((p) => ({
      index: p.index,
      children: p.children.map((c) => c.members),
    })),
    multiplicity: { tokens: g.multiplicity.tokens, max: g.multiplicity.max },
    advantages: { recorded: g.advantages.recorded, computed: g.advantages.grpo },
  };
}

function hasFinding(g: LocatedForest, what: FailOn): boolean {
  if (what === "duplicates") return g.duplicateSets.length > 0;
  if (what === "zero-variance") return g.zeroVariance;
  return g.multiplicity.tokens > 0;
}

const set = (s: readonly number[]) => `{${s.join(",")}}`;

function formatGroup(g: LocatedForest): string[] {
  const head = `  ${g.key} (line ${g.line}, ${g.size} members, ${g.kind}${g.isRecorded ? ", recorded tree" : ""})`;
  const points = g.branchPoints.map(
    (p) => `${p.index} ${p.children.map((c) => set(c.members)).join("|")}`,
  );
  const grpo = g.advantages.grpo.map((a) => (a === null ? "-" : a.toFixed(3))).join(" ");
  const lines = [
    `${head}${g.causes.length === 0 ? ": nothing found" : ""}`,
    ...g.causes.map((c) => `    ${c}`),
    `    branch points: ${points.length === 0 ? "none" : points.join("; ")}`,
    `    advantages (computed, GRPO): ${grpo}${g.advantages.recorded ? `; recorded: ${g.advantages.recorded.map((a) => (a === null ? "-" : a.toFixed(3))).join(" ")}` : ""}`,
  ];
  return lines;
}

function formatFile(report: FileGroupsReport): string[] {
  if (report.readError !== undefined) return [`${report.path}: cannot read: ${report.readError}`];
  const g = report.groups;
  const count = (p: (x: LocatedForest) => boolean) => g.filter(p).length;
  const head =
    `${report.path}: ${report.format ?? "no readable records"}, ${g.length} groups: ` +
    `${count((x) => x.zeroVariance)} zero-variance, ${count((x) => x.duplicateSets.length > 0)} with duplicates, ` +
    `${count((x) => x.multiplicity.tokens > 0)} with multiplicity`;
  const bad = report.errors.map(
    (e) =>
      `  line ${e.line}${e.field === undefined ? "" : ` [${e.field}]`}: ${e.message} (not checked)`,
  );
  return [head, ...bad, ...g.flatMap(formatGroup)];
}

function parseFailOn(text: string | undefined, io: CommandIo): FailOn[] | number {
  if (text === undefined) return [];
  const parts = text.split(",").map((s) => s.trim());
  const bad = parts.filter((p) => !(GROUPS_FAIL_ON as readonly string[]).includes(p));
  if (bad.length > 0) {
    io.err(
      `groups: --fail-on takes ${GROUPS_FAIL_ON.join(", ")} (comma-separated), got ${bad.join(", ")}`,
    );
    return 2;
  }
  return parts as FailOn[]; // every part checked against GROUPS_FAIL_ON above
}

/** Runs `groups` on parsed flags and files; resolves to the exit code. */
export async function runGroups(
  { values, positionals }: ParsedArgs<GroupsFlags>,
  io: CommandIo,
): Promise<number> {
  const failOn = parseFailOn(values.failOn, io);
  if (typeof failOn === "number") return failOn;
  const nearK = Number(values.nearK ?? DEFAULT_NEAR_K);
  if (!Number.isSafeInteger(nearK) || nearK < 0) {
    io.err(`groups: --near-k must be a whole number ≥ 0, got ${values.nearK}`);
    return 2;
  }
  if (positionals.length === 0) {
    io.err("groups: give at least one FILE");
    return 2;
  }
  const inputs = await shardInputs("groups", positionals, values.shard, io);
  if (typeof inputs === "number") return inputs;
  const reports: FileGroupsReport[] = [];
  for (const { path, shard } of inputs.files) {
    const keep = shard && ((key: string) => stableHash(key) % shard.count === shard.index);
    reports.push(await groupsOfFile(path, nearK, keep));
  }
  if (values.json) {
    const shard = inputs.shard && { index: inputs.shard.index, count: inputs.shard.count };
    const files = reports.map((r) => ({
      path: r.path,
      format: r.format,
      groups: r.groups.map(groupJson),
    }));
    io.out(JSON.stringify({ ...(shard ? { shard } : {}), files }));
  } else {
    for (const report of reports) io.out(formatFile(report).join("\n"));
  }
  for (const r of reports) {
    if (r.readError === undefined && r.errors.length > 0 && values.json) {
      for (const e of r.errors) io.err(`${r.path}: line ${e.line}: ${e.message} (not checked)`);
    } else if (r.readError !== undefined && values.json)
      io.err(`${r.path}: cannot read: ${r.readError}`);
  }
  const isUnread =
    inputs.problems ||
    reports.some((r) => r.readError !== undefined || r.errors.length > 0 || r.format === null);
  if (isUnread) return 2;
  const found = reports.some((r) => r.groups.some((g) => failOn.some((f) => hasFinding(g, f))));
  return found ? 1 : 0;
}

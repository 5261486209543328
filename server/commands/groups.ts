import { badLineText } from "../../src/core/files/errorLog";
import type { LocatedForest } from "../../src/core/forest/forestOf";
import { DEFAULT_NEAR_K } from "../../src/core/forest/groupForest";
import { type FileGroupsReport, groupsUnit } from "../scan/groupsUnit";
import { jsonWriter, openFiles } from "../scan/jsonStream";
import { createScanWorkers, failureMessage, runInOrder } from "../scan/scanRunner";
import type { GroupsFlags, ParsedArgs } from "./commandFlags";
import type { CommandIo } from "./commandIo";
import { type ShardedInput, shardInputs } from "./shardInputs";

export { type FileGroupsReport, groupsOfFile } from "../scan/groupsUnit";

/** The findings `--fail-on` can turn into exit code 1. */
export const GROUPS_FAIL_ON = ["duplicates", "zero-variance", "multiplicity"] as const;
type FailOn = (typeof GROUPS_FAIL_ON)[number];

/** One group as `--json` prints it (docs/forest.md#the-command). */
export function groupJson(g: LocatedForest) {
  return {
    id: g.key,
    line: g.line,
    size: g.size,
    with_ids: g.withIds,
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

/** A group whose token checks `what` names did not run: its members are text only (no ids). */
function isUnchecked(g: LocatedForest, what: FailOn): boolean {
  return what !== "zero-variance" && !g.isTokenChecked;
}

function hasFinding(g: LocatedForest, what: FailOn): boolean {
  if (what === "duplicates") return g.duplicateSets.length > 0;
  if (what === "zero-variance") return g.zeroVariance;
  return g.multiplicity.tokens > 0;
}

const set = (s: readonly number[]) => `{${s.join(",")}}`;

function formatGroup(g: LocatedForest, unit: string): string[] {
  const head = `  ${g.key} (${unit} ${g.line}, ${g.size} member${g.size === 1 ? "" : "s"}, ${g.kind}${g.isRecorded ? ", recorded tree" : ""})`;
  const points = g.branchPoints.map(
    (p) => `${p.index} ${p.children.map((c) => set(c.members)).join("|")}`,
  );
  const grpo = g.advantages.grpo.map((a) => (a === null ? "-" : a.toFixed(3))).join(" ");
  const lines = [
    `${head}${g.causes.length === 0 ? ": nothing found" : ""}`,
    ...g.causes.map((c) => `    ${c}`),
    `    branch points: ${g.isTokenChecked ? (points.length === 0 ? "none" : points.join("; ")) : "not checked (no token ids)"}`,
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
  const unit = report.unit ?? "line";
  const bad = report.errors.map((e) => `  ${badLineText(e, unit)} (not checked)`);
  return [head, ...bad, ...g.flatMap((x) => formatGroup(x, unit))];
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

/** A file whose worker failed: nothing but why. */
function failedFile(unit: ShardedInput, error: unknown): FileGroupsReport {
  return {
    path: unit.path,
    format: null,
    groups: [],
    errors: [],
    readError: failureMessage(error),
  };
}

/** One file as `--json` prints it; bad lines and a read error only when there are some. */
function fileJson(r: FileGroupsReport) {
  return {
    ...{ path: r.path, format: r.format, groups: r.groups.map(groupJson) },
    ...(r.errors.length > 0 ? { errors: r.errors } : {}),
    ...(r.readError === undefined ? {} : { read_error: r.readError }),
    ...(r.unit === undefined ? {} : { unit: r.unit }),
  };
}

/** Where each file's report goes when it ends: the text report, or the next entry of `--json`. */
function groupsSink(json: boolean, head: Record<string, unknown>, io: CommandIo) {
  if (!json) {
    return { done: (r: FileGroupsReport) => io.out(formatFile(r).join("\n")), end: () => {} };
  }
  const out = jsonWriter(io);
  out.write(openFiles(head));
  let files = 0;
  return {
    done(r: FileGroupsReport) {
      out.write(`${files++ > 0 ? "," : ""}${JSON.stringify(fileJson(r))}`);
      // The text report names these; with --json they also go to stderr, as before.
      if (r.readError !== undefined) io.err(`${r.path}: cannot read: ${r.readError}`);
      for (const e of r.errors) io.err(`${r.path}: ${badLineText(e, r.unit)} (not checked)`);
    },
    end: () => out.end("]}"),
  };
}

/**
 * Runs `groups` on parsed flags and files, on the scanning commands' runner
 * (server/scan/scanRunner.ts): with `--jobs N` each file is read on one of N worker threads, and
 * each file's report is written when it ends, in input order; resolves to the exit code.
 */
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
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) {
    io.err("groups: --jobs must be a positive integer");
    return 2;
  }
  if (positionals.length === 0) {
    io.err("groups: give at least one FILE");
    return 2;
  }
  const inputs = await shardInputs("groups", positionals, values.shard, io);
  if (typeof inputs === "number") return inputs;
  const shard = inputs.shard && { index: inputs.shard.index, count: inputs.shard.count };
  const sink = groupsSink(values.json === true, shard ? { shard } : {}, io);
  let isUnread = inputs.problems;
  let found = false;
  const workers = createScanWorkers(jobs);
  const options = { nearK };
  try {
    await runInOrder<never, FileGroupsReport>(
      inputs.files,
      jobs,
      (unit, _onPart, lane) =>
        workers?.isWorkerLane(lane)
          ? workers
              .run<never, FileGroupsReport>({ kind: "groups", unit, options }, () => {})
              .catch((error: unknown) => failedFile(unit, error))
          : groupsUnit(unit, options),
      {
        part: () => {},
        done(_unit, r) {
          sink.done(r);
          isUnread ||= r.readError !== undefined || r.errors.length > 0 || r.format === null;
          isUnread ||= r.groups.some((g) => failOn.some((what) => isUnchecked(g, what)));
          found ||= r.groups.some((g) => failOn.some((what) => hasFinding(g, what)));
        },
      },
      workers?.laneReady,
    );
  } finally {
    await workers?.close();
  }
  sink.end();
  if (isUnread) return 2;
  return found ? 1 : 0;
}

import { badLineText } from "../../src/core/files/errorLog";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { CorrectionChoice } from "../../src/core/mismatch/corrections/registry";
import type { ReplaySummary } from "../../src/core/mismatch/corrections/replay";
import { emptyCharts, finishCharts } from "../../src/core/mismatch/fileMismatch";
import type { Correction, MismatchStats } from "../../src/core/mismatch/mismatch";
import {
  aggregateMismatch,
  type FileMismatchStats,
} from "../../src/core/mismatch/trajectoryMismatch";
import { jsonWriter, openFiles, restOf } from "../scan/jsonStream";
import {
  type MismatchUnitDone,
  type MismatchUnitOptions,
  mismatchUnit,
  type TrajectoryMismatchReport,
} from "../scan/mismatchUnit";
import { createScanWorkers, failureMessage, runInOrder, type UnitSink } from "../scan/scanRunner";
import type { MismatchFlags, ParsedArgs } from "./commandFlags";
import type { CommandIo } from "./commandIo";
import { mappingOfFlags } from "./mapFlag";
import { parseCorrections } from "./mismatchCorrections";
import { type ShardedInput, shardInputs } from "./shardInputs";

export type { TrajectoryMismatchReport } from "../scan/mismatchUnit";

/** What `mismatch` found in one file: its trajectories and what `mismatchUnit` ends with. */
export interface FileMismatchReport extends MismatchUnitDone {
  readonly trajectories: TrajectoryMismatchReport[];
}

/** Reads `path` and computes the mismatch of every trajectory (lanes given, or each one's default). */
export async function mismatchFile(
  path: string,
  c: Correction,
  lanes: readonly [string, string] | undefined,
  mapping?: ColumnMapping,
  choices: readonly CorrectionChoice[] = [],
): Promise<FileMismatchReport> {
  const trajectories: TrajectoryMismatchReport[] = [];
  const options = {
    correction: c,
    choices,
    ...(lanes ? { lanes } : {}),
    ...(mapping ? { mapping } : {}),
  };
  const done = await mismatchUnit({ path }, options, (rows) => trajectories.push(...rows));
  return { ...done, trajectories };
}

const NOTHING_COMPARED =
  "nothing compared: no trained token has a logprob in both lanes. A mismatch needs the sampled " +
  "(inference) logprobs, e.g. atropos' inference_logprobs, and a second lane (trainer, " +
  "reference, rescored: `rollout-lens rescore`); a per-token array of other values (rewards, " +
  "weights) is not a lane";

/** No trajectory of the file had two lanes, or none had a token with both (exit 2). */
function nothingCompared(r: MismatchUnitDone): boolean {
  return r.readError === undefined && r.summary.compared === 0;
}

const f = (x: number, digits = 4) => (Number.isFinite(x) ? x.toFixed(digits) : String(x));
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

function statsText(s: MismatchStats | FileMismatchStats): string {
  const max = "maxAt" in s && s.maxAt >= 0 ? ` @${s.maxAt}` : "";
  return (
    `${s.compared} tokens, mean|δ| ${f(s.meanAbsDelta)}, max|δ| ${f(s.maxAbsDelta)}${max}, ` +
    `mean|Δp| ${f(s.meanAbsDp)}, k1 ${f(s.k1, 5)}, k2 ${f(s.k2, 5)}, k3 ${f(s.k3, 5)}` +
    ("ess" in s ? `, ESS ${f(s.ess, 3)}, Σδ ${f(s.sumDelta, 3)}` : "") +
    `, clipped ${s.clipped}, masked ${s.masked} (${pct(s.fractionCorrected)})`
  );
}

function replayText(r: ReplaySummary): string {
  const params = Object.entries(r.params)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const rows = r.rowsDropped;
  const more = rows.length > 20 ? ` +${rows.length - 20} more (--json lists them)` : "";
  const dropped =
    rows.length === 0 ? "none" : `${rows.length}: ${rows.slice(0, 20).join(" ")}${more}`;
  const unchecked =
    r.unchecked === 0
      ? ""
      : `, unchecked ${r.unchecked} tokens of ${r.rowsUnchecked.length} rows (no advantage)`;
  return (
    `  ${r.name} (${params}): masked ${pct(r.fractionMasked)}, clipped ${pct(r.fractionClipped)}, ` +
    `ESS ${f(r.ess, 3)}, rows dropped ${dropped}${unchecked}`
  );
}

interface MismatchRun {
  readonly options: MismatchUnitOptions;
  readonly jobs: number;
  readonly failAbove: number | undefined;
}

/** The flags checked and turned into a run's options, or the exit code 2 (the reason printed). */
function mismatchRunOf(values: MismatchFlags, io: CommandIo): MismatchRun | number {
  const fail = (message: string) => {
    io.err(`mismatch: ${message}`);
    return 2;
  };
  const asked = parseCorrections(values);
  if (typeof asked === "string") return fail(asked);
  const c = asked.main;
  let lanes: [string, string] | undefined;
  if (values.lanes !== undefined) {
    const parts = values.lanes.split(",").map((s) => s.trim());
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      return fail(`--lanes: expected A,B, got "${values.lanes}"`);
    }
    lanes = [parts[0], parts[1]];
  }
  let failAbove: number | undefined;
  if (values.failAbove !== undefined) {
    failAbove = Number(values.failAbove);
    if (!(failAbove >= 0)) {
      return fail(`--fail-above: expected a number >= 0, got "${values.failAbove}"`);
    }
  }
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) return fail("--jobs must be a positive integer");
  const mapping = mappingOfFlags("mismatch", values, io);
  if (typeof mapping === "number") return mapping;
  const options = {
    correction: c,
    choices: asked.choices,
    ...(lanes ? { lanes } : {}),
    ...(mapping ? { mapping } : {}),
  };
  return { options, jobs, failAbove };
}

/** A unit whose worker failed (or that could not be read at all): nothing but why. */
function failedUnit(unit: ShardedInput, error: unknown): MismatchUnitDone {
  return {
    ...{ path: unit.path, format: null, skipped: [], errors: [], summary: aggregateMismatch([]) },
    ...{ charts: finishCharts(emptyCharts()), rows: 0, replays: [] },
    readError: failureMessage(error),
    ...(unit.shard === undefined ? {} : { shard: unit.shard }),
  };
}

/** Skipped trajectories named per reason in the text report; `--json` lists each one. */
const SKIPPED_SHOWN = 8;

/**
 * The skipped trajectories grouped by reason, in file order, each reason's first few named
 * (`id unit N`): a 10k-row text table gives one line, not 10k.
 */
function skippedLines(skipped: MismatchUnitDone["skipped"], unit: string): string[] {
  const byReason = new Map<string, string[]>();
  for (const s of skipped) {
    const places = byReason.get(s.reason) ?? [];
    places.push(`${s.id} ${unit} ${s.line}`);
    byReason.set(s.reason, places);
  }
  return [...byReason].map(([reason, places]) => {
    const more = places.length > SKIPPED_SHOWN ? ` and ${places.length - SKIPPED_SHOWN} more` : "";
    const named = places.slice(0, SKIPPED_SHOWN).join(", ");
    return `  ${places.length} skipped (${named}${more}): ${reason}`;
  });
}

/** The human lines of one file's report. */
function humanLines(r: FileMismatchReport): string[] {
  if (r.readError !== undefined) return [`${r.path}: cannot read: ${r.readError}`];
  const what = r.format ?? "no readable records";
  const unit = r.unit ?? "line";
  const lines = [
    r.summary.trajectories === 0
      ? `${r.path}: ${what}, no trajectory compared`
      : `${r.path}: ${what}, ${r.summary.trajectories} trajectories: ${statsText(r.summary)}`,
  ];
  const split = r.charts.decomposition;
  if (split && split.compared > 0) {
    const v = split.rows;
    lines.push(
      `${r.path}: where the mismatch comes from: ${v.spurious} rows spurious (temperature/support), ${v.real} real, ${v.none} within [0.9, 1.1], ${v.unchecked} unchecked (${split.compared - split.known} of ${split.compared} tokens with a term unknown)`,
    );
  }
  if (r.replays.length > 0) {
    lines.push(`${r.path}: corrections replayed over the file (${r.summary.compared} tokens):`);
    for (const replayed of r.replays) lines.push(replayText(replayed));
  }
  for (const t of r.trajectories) {
    lines.push(
      `  ${t.id} (${unit} ${t.line}, ${t.lanes[0]} vs ${t.lanes[1]}): ${statsText(t.stats)}`,
    );
  }
  lines.push(...skippedLines(r.skipped, unit));
  if (nothingCompared(r)) lines.push(`${r.path}: ${NOTHING_COMPARED}`);
  for (const e of r.errors) {
    lines.push(`  ${badLineText(e, unit)}`);
  }
  return lines;
}

/**
 * Where the files' results go: `--json` streams each file's trajectories as they come and its
 * totals, skipped trajectories and charts at its end (docs/mismatch.md); the text report is
 * printed per file when it ends.
 */
function mismatchSink(
  json: boolean,
  head: Record<string, unknown>,
  io: CommandIo,
): UnitSink<TrajectoryMismatchReport[], MismatchUnitDone> & { end(): void } {
  if (!json) {
    const held: TrajectoryMismatchReport[] = [];
    return {
      part: (_unit, rows) => held.push(...rows),
      done: (_unit, done) => {
        for (const line of humanLines({ ...done, trajectories: held.splice(0) })) io.out(line);
      },
      end: () => {},
    };
  }
  const out = jsonWriter(io);
  out.write(openFiles(head));
  let files = 0;
  let open: ShardedInput | undefined;
  let rows = 0;
  const opening = (unit: ShardedInput) => {
    if (open === unit) return;
    open = unit;
    rows = 0;
    out.write(`${files++ > 0 ? "," : ""}{"path":${JSON.stringify(unit.path)},"trajectories":[`);
  };
  return {
    part(unit, part) {
      opening(unit);
      for (const t of part) out.write(`${rows++ > 0 ? "," : ""}${JSON.stringify(t)}`);
    },
    done(unit, done) {
      opening(unit);
      const { path: _path, readError, ...rest } = done;
      // `unchecked`: trajectories not compared (no two lanes), as `drift --json` counts them;
      // `read_error` as drift, validate and the MCP tools name it.
      const error = readError === undefined ? {} : { read_error: readError };
      out.write(`]${restOf({ ...rest, ...error, unchecked: done.skipped.length })}`);
      open = undefined;
    },
    end: () => out.end("]}"),
  };
}

/** 2 when a file was not read or a trajectory not compared, 1 over `failAbove`, else 0. */
function exitCodeOf(done: MismatchUnitDone, failAbove: number | undefined): number {
  const broken =
    done.readError !== undefined ||
    done.errors.length > 0 ||
    done.skipped.length > 0 ||
    // A correction that needs an advantage some row lacks was not run on it (unchecked).
    done.replays.some((x) => x.unchecked > 0) ||
    nothingCompared(done);
  if (broken) return 2;
  return failAbove !== undefined && done.summary.fractionCorrected > failAbove ? 1 : 0;
}

/**
 * `rollout-lens mismatch FILE|DIR|GLOB... [--lanes a,b] [--correction C] [--cap C] [--json]
 * [--fail-above X] [--jobs N] [--shard I/N]`, on the scanning commands' runner
 * (server/scan/scanRunner.ts): with `--jobs N` each file is read on one of N worker threads.
 */
export async function runMismatch(
  { values, positionals }: ParsedArgs<MismatchFlags>,
  io: CommandIo,
): Promise<number> {
  if (positionals.length === 0) {
    io.err("mismatch: give at least one FILE");
    return 2;
  }
  const run = mismatchRunOf(values, io);
  if (typeof run === "number") return run;
  // Directories and globs name their rollout files, as for validate and drift.
  const inputs = await shardInputs("mismatch", positionals, values.shard, io);
  if (typeof inputs === "number") return inputs;
  const { options, jobs, failAbove } = run;
  const shard = inputs.shard && { index: inputs.shard.index, count: inputs.shard.count };
  const head = { scan: "mismatch", correction: options.correction, ...(shard ? { shard } : {}) };
  if (!values.json) {
    const c = options.correction;
    io.out(`correction ${c.kind} (cap ${c.cap}, bounds [${f(c.lo, 3)}, ${f(c.hi, 3)}])`);
  }
  const sink = mismatchSink(values.json === true, head, io);
  let code = inputs.problems ? 2 : 0;
  const workers = createScanWorkers(jobs);
  try {
    await runInOrder<TrajectoryMismatchReport[], MismatchUnitDone>(
      inputs.files,
      jobs,
      (unit, onRows, lane) =>
        workers?.isWorkerLane(lane)
          ? workers
              .run<TrajectoryMismatchReport[], MismatchUnitDone>(
                { kind: "mismatch", unit, options },
                onRows,
              )
              .catch((error: unknown) => failedUnit(unit, error))
          : mismatchUnit(unit, options, onRows),
      {
        part: sink.part,
        done(unit, done) {
          sink.done(unit, done);
          code = Math.max(code, exitCodeOf(done, failAbove));
        },
      },
      workers?.laneReady,
    );
  } finally {
    await workers?.close();
  }
  sink.end();
  return code;
}

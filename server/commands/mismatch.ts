import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { FormatId, LineError } from "../../src/core/formats/types";
import type { CorrectionChoice } from "../../src/core/mismatch/corrections/registry";
import type { ReplaySummary } from "../../src/core/mismatch/corrections/replay";
import { replayCollector } from "../../src/core/mismatch/corrections/replayRows";
import {
  emptyCharts,
  finishCharts,
  type MismatchCharts,
  mismatchIntoCharts,
} from "../../src/core/mismatch/fileMismatch";
import type { Correction, MismatchStats } from "../../src/core/mismatch/mismatch";
import {
  aggregateMismatch,
  type FileMismatchStats,
} from "../../src/core/mismatch/trajectoryMismatch";
import { expandInputs } from "../files/expandInputs";
import { readLines, readNumberedLine } from "../files/readLines";
import { mappingOfFlags } from "./mapFlag";
import { parseCorrections } from "./mismatchCorrections";
import type { MismatchFlags, ParsedArgs } from "./spec";
import type { CommandIo } from "./validate";

/** One trajectory's statistics, as `--json` prints them. */
export interface TrajectoryMismatchReport {
  readonly id: string;
  readonly line: number;
  readonly row: number;
  readonly lanes: readonly [string, string];
  readonly stats: MismatchStats;
}

export interface FileMismatchReport {
  readonly path: string;
  readonly format: FormatId | null;
  readonly trajectories: TrajectoryMismatchReport[];
  /** Trajectories without the lanes asked for, with why. */
  readonly skipped: { id: string; line: number; reason: string }[];
  readonly errors: LineError[];
  readonly summary: FileMismatchStats;
  /** The file-wide histogram of r, probability sample, buckets and worst tokens (as the app's). */
  readonly charts: MismatchCharts;
  /** Each correction of `--correction` replayed over the file as one batch (the what-if table's). */
  readonly replays: readonly ReplaySummary[];
  readonly readError?: string;
}

/** Reads `path` and computes the mismatch of every trajectory (lanes given, or each one's default). */
export async function mismatchFile(
  path: string,
  c: Correction,
  lanes: readonly [string, string] | undefined,
  mapping?: ColumnMapping,
  choices: readonly CorrectionChoice[] = [],
): Promise<FileMismatchReport> {
  let format: FormatId | undefined;
  const trajectories: TrajectoryMismatchReport[] = [];
  const skipped: FileMismatchReport["skipped"] = [];
  const errors: LineError[] = [];
  let readError: string | undefined;
  const charts = emptyCharts();
  // Rows are kept for the replays only when some are asked for (the MCP server asks for none).
  const collector = choices.length > 0 ? replayCollector(lanes) : undefined;
  let row = 0;
  try {
    for await (const line of readLines(path)) {
      const { lineNo } = line;
      const result = readNumberedLine(line, format, path, mapping);
      if (result.kind === "blank") continue;
      if (result.kind === "error") {
        errors.push(result.error);
        continue;
      }
      format ??= result.format;
      for (const t of result.trajectories) {
        // `row` counts the file's trajectories (the app's row index, the deep link's).
        collector?.add(t, row);
        const out = mismatchIntoCharts(charts, t, row++, lineNo, { lanes, correction: c });
        if (!out.ok) {
          skipped.push({ id: t.id, line: lineNo, reason: out.reason });
          continue;
        }
        trajectories.push({
          id: t.id,
          line: lineNo,
          row: t.source.row ?? 0,
          lanes: out.lanes,
          stats: out.stats,
        });
      }
    }
  } catch (error) {
    readError = error instanceof Error ? error.message : String(error);
  }
  const summary = aggregateMismatch(trajectories.map((t) => t.stats));
  return {
    path,
    format: format ?? null,
    trajectories,
    skipped,
    errors,
    summary,
    charts: finishCharts(charts),
    replays: collector ? collector.finish(choices).replays.map((r) => r.summary) : [],
    ...(readError === undefined ? {} : { readError }),
  };
}

const NOTHING_COMPARED =
  "nothing compared: no trained token has a logprob in both lanes. A mismatch needs the sampled " +
  "(inference) logprobs, e.g. atropos' inference_logprobs, and a second lane (trainer, " +
  "reference, rescored: `rollout-lens rescore`); a per-token array of other values (rewards, " +
  "weights) is not a lane";

/** No trajectory of the file had two lanes, or none had a token with both (exit 2). */
function nothingCompared(r: FileMismatchReport): boolean {
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

/** `rollout-lens mismatch FILE... [--lanes a,b] [--correction C] [--cap C] [--json] [--fail-above X]`. */
export async function runMismatch(
  { values, positionals }: ParsedArgs<MismatchFlags>,
  io: CommandIo,
): Promise<number> {
  if (positionals.length === 0) {
    io.err("mismatch: give at least one FILE");
    return 2;
  }
  const asked = parseCorrections(values);
  if (typeof asked === "string") {
    io.err(`mismatch: ${asked}`);
    return 2;
  }
  const c = asked.main;
  let lanes: [string, string] | undefined;
  if (values.lanes !== undefined) {
    const parts = values.lanes.split(",").map((s) => s.trim());
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      io.err(`mismatch: --lanes: expected A,B, got "${values.lanes}"`);
      return 2;
    }
    lanes = [parts[0], parts[1]];
  }
  let failAbove: number | undefined;
  if (values.failAbove !== undefined) {
    failAbove = Number(values.failAbove);
    if (!(failAbove >= 0)) {
      io.err(`mismatch: --fail-above: expected a number >= 0, got "${values.failAbove}"`);
      return 2;
    }
  }
  const mapping = mappingOfFlags("mismatch", values, io);
  if (typeof mapping === "number") return mapping;
  const reports: FileMismatchReport[] = [];
  // Directories and globs name their rollout files, as for validate and drift.
  const { files, problems } = await expandInputs(positionals);
  for (const problem of problems) io.err(`mismatch: ${problem}`);
  if (problems.length > 0) return 2;
  for (const path of files)
    reports.push(await mismatchFile(path, c, lanes, mapping, asked.choices));
  if (values.json) {
    // `unchecked`: trajectories not compared (no two lanes), as `drift --json` counts them.
    const files = reports.map((r) => ({ ...r, unchecked: r.skipped.length }));
    io.out(JSON.stringify({ correction: c, files }));
  } else {
    io.out(`correction ${c.kind} (cap ${c.cap}, bounds [${f(c.lo, 3)}, ${f(c.hi, 3)}])`);
    for (const r of reports) {
      if (r.readError !== undefined) {
        io.out(`${r.path}: cannot read: ${r.readError}`);
        continue;
      }
      io.out(
        `${r.path}: ${r.format ?? "no readable records"}, ${r.summary.trajectories} trajectories: ${statsText(r.summary)}`,
      );
      io.out(`${r.path}: corrections replayed over the file (${r.summary.compared} tokens):`);
      for (const replayed of r.replays) io.out(replayText(replayed));
      for (const t of r.trajectories) {
        io.out(`  ${t.id} (line ${t.line}, ${t.lanes[0]} vs ${t.lanes[1]}): ${statsText(t.stats)}`);
      }
      for (const s of r.skipped) io.out(`  ${s.id} (line ${s.line}) skipped: ${s.reason}`);
      if (nothingCompared(r)) io.out(`${r.path}: ${NOTHING_COMPARED}`);
      for (const e of r.errors) {
        io.out(`  line ${e.line}${e.field === undefined ? "" : ` [${e.field}]`}: ${e.message}`);
      }
    }
  }
  // A trajectory not compared is never counted as "no mismatch": exit 2, as drift does.
  const broken = reports.some(
    (r) =>
      r.readError !== undefined ||
      r.errors.length > 0 ||
      r.skipped.length > 0 ||
      // A correction that needs an advantage some row lacks was not run on it (unchecked).
      r.replays.some((x) => x.unchecked > 0) ||
      nothingCompared(r),
  );
  if (broken) return 2;
  const over =
    failAbove !== undefined &&
    reports.some((r) => r.summary.fractionCorrected > (failAbove as number));
  return over ? 1 : 0;
}

import { DRIFT_MODES, type DriftMode } from "../../src/core/drift/types";
import { mergeStepStats, type StepStats } from "../../src/core/files/stepStats";
import { type CorrectionChoice, choose } from "../../src/core/mismatch/corrections/registry";
import type { ReplaySummary } from "../../src/core/mismatch/corrections/replay";
import { type Correction, type CorrectionKind, correction } from "../../src/core/mismatch/mismatch";
import { jsonReport } from "../drift/driftReport";
import { mappingOf } from "../files/fileRegistry";
import { computeStepStats } from "../files/stepStats";
import type { LoadedFile } from "./mcpFiles";
import { fileUrl, rowUrl, type ToolContext, type ToolRun } from "./toolTypes";

// The check tools' implementations (their schemas: toolSpecs.ts): the commands' own code.

function paged<T>(items: readonly T[], args: Record<string, unknown>, limit: number) {
  const offset = Number(args.offset ?? 0);
  const slice = items.slice(offset, offset + Number(args.limit ?? limit));
  const next = offset + slice.length < items.length ? offset + slice.length : null;
  return { items: slice, next };
}

/** Row index of each `line:row` place of the file. */
function rowIndex(loaded: LoadedFile): Map<string, number> {
  return new Map(loaded.rows.map((r) => [`${r.line}:${r.row}`, r.index]));
}

function linked(ctx: ToolContext, loaded: LoadedFile, place: string, token: number) {
  const row = rowIndex(loaded).get(place);
  return row === undefined ? {} : { row, url: rowUrl(ctx, loaded.file.id, row, token) };
}

const MODES: Readonly<Record<string, readonly DriftMode[]>> = {
  roundtrip: ["roundtrip"],
  template: ["template"],
  text: ["text"],
  all: DRIFT_MODES,
};

export const checkDrift: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const mode = String(args.mode ?? "roundtrip");
  const report = jsonReport(await rt.checks.drift(loaded, MODES[mode] ?? ["roundtrip"]));
  const { results, path: _path, unchecked_trajectories, ...counts } = report;
  const drifted = (results as Record<string, unknown>[]).filter(
    (r) => r.first_divergence_index !== null,
  );
  const { items, next } = paged(drifted, args, 20);
  return {
    file: loaded.file.id,
    mode,
    ...counts,
    unchecked_trajectories: (unchecked_trajectories as unknown[]).slice(0, 50),
    drifted_results: items.map((r) => ({
      ...r,
      ...linked(ctx, loaded, `${r.line}:${r.row}`, r.first_divergence_index as number),
    })),
    next_offset: next,
    url: fileUrl(ctx, loaded.file.id),
  };
};

const CORRECTIONS: Readonly<Record<string, CorrectionKind>> = {
  "token-trunc": "token-trunc",
  "token-mask": "token-mask",
  seq: "seq-mask",
  "seq-trunc": "seq-trunc",
  geo: "geo-mask",
};

function correctionOf(args: Record<string, unknown>): Correction {
  const kind = CORRECTIONS[String(args.correction ?? "token-trunc")] ?? "token-trunc";
  return correction(kind, { cap: Number(args.cap ?? 2) });
}

/**
 * The corrections `replay` names, thresholds from `thresholds[name]` (defaults for the rest), as
 * `mismatch --correction` resolves them; throws the CLI's words for an unknown name or threshold.
 */
function replayChoices(args: Record<string, unknown>): CorrectionChoice[] {
  const names = (args.replay as string[] | undefined) ?? [];
  const given = (args.thresholds as Record<string, Record<string, number>> | undefined) ?? {};
  const unused = Object.keys(given).filter((name) => !names.includes(name));
  if (unused.length > 0) {
    throw new Error(`thresholds given for ${unused.join(", ")}, which replay does not name`);
  }
  return names.map((name) => {
    const choice = choose(name, given[name] ?? {});
    if (typeof choice === "string") throw new Error(choice);
    return choice;
  });
}

/** A replay as `mismatch --json` prints it, its row lists cut to a page. */
function replayAnswer(r: ReplaySummary) {
  const { rowsDropped, rowsUnchecked, ...rest } = r;
  return {
    ...rest,
    rows_dropped: rowsDropped.slice(0, 50),
    rows_dropped_count: rowsDropped.length,
    rows_unchecked: rowsUnchecked.slice(0, 50),
    rows_unchecked_count: rowsUnchecked.length,
  };
}

export const checkMismatch: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const c = correctionOf(args);
  const choices = replayChoices(args);
  const lanes = args.lanes as [string, string] | undefined;
  const r = await rt.checks.mismatch(loaded, c, lanes, choices);
  const worst = [...r.trajectories].sort((a, b) => b.stats.maxAbsDelta - a.stats.maxAbsDelta);
  const { items, next } = paged(worst, args, 20);
  return {
    file: loaded.file.id,
    correction: c,
    format: r.format,
    summary: r.summary,
    ...(r.summary.compared === 0 ? { nothing_compared: true } : {}),
    trajectories: items.map((t) => {
      const { segments: _segments, ...stats } = t.stats;
      return {
        ...{ id: t.id, line: t.line, lanes: t.lanes, stats },
        ...linked(ctx, loaded, `${t.line}:${t.row}`, t.stats.maxAt),
      };
    }),
    next_offset: next,
    skipped: r.skipped.slice(0, 20),
    skipped_count: r.skipped.length,
    bad_lines: r.errors.length,
    ...(r.unit === undefined ? {} : { unit: r.unit }),
    ...(choices.length === 0 ? {} : { replays: r.replays.map(replayAnswer) }),
    ...(r.readError === undefined ? {} : { read_error: r.readError }),
  };
};

interface StepEntry {
  readonly run: string;
  readonly step: number;
  readonly parts: StepStats[];
  readonly files: string[];
}

export const stepTrends: ToolRun = async (args, rt, ctx) => {
  const files = rt.files.registry
    .list()
    .filter((f) => f.run && (args.run === undefined || f.run.id === args.run));
  if (files.length === 0) {
    throw new Error(
      args.run === undefined
        ? "no run directory was given to this server"
        : `no run with id "${String(args.run)}"`,
    );
  }
  const byStep = new Map<string, StepEntry>();
  for (const f of files) {
    const stats = await computeStepStats(f.path, rt.files.tokenizers, mappingOf(f));
    const run = f.run?.id ?? "";
    const step = f.run?.step ?? 0;
    const entry = byStep.get(`${run}:${step}`) ?? { run, step, parts: [], files: [] };
    entry.parts.push(stats);
    entry.files.push(f.id);
    byStep.set(`${run}:${step}`, entry);
  }
  return {
    steps: [...byStep.values()].map((s) => ({
      ...{ run: s.run, step: s.step },
      files: s.files.map((id) => ({ id, url: fileUrl(ctx, id) })),
      stats: mergeStepStats(s.parts) ?? null,
    })),
  };
};

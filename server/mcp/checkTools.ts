import { z } from "zod";
import { DRIFT_MODES, type DriftMode } from "../../src/core/drift/types";
import { mergeStepStats, type StepStats } from "../../src/core/files/stepStats";
import { type Correction, type CorrectionKind, correction } from "../../src/core/mismatch/mismatch";
import { jsonReport } from "../drift/driftReport";
import { mappingOf } from "../files/fileRegistry";
import { computeStepStats } from "../files/stepStats";
import type { McpTool, ToolContext } from "./toolTypes";
import { fileUrl, rowUrl } from "./toolTypes";

const fileArg = z.string().min(1).max(64).describe("a file id from list_files");
const page = {
  offset: z.number().int().nonnegative().max(100_000_000).default(0),
  limit: z.number().int().min(1).max(200).default(20),
};

function paged<T>(items: readonly T[], offset: number, limit: number) {
  const slice = items.slice(offset, offset + limit);
  const next = offset + slice.length < items.length ? offset + slice.length : null;
  return { items: slice, next };
}

const MODES: Readonly<Record<string, readonly DriftMode[]>> = {
  roundtrip: ["roundtrip"],
  template: ["template"],
  text: ["text"],
  all: DRIFT_MODES,
};

const checkDrift: McpTool = {
  name: "check_drift",
  description:
    "The `drift` command on one file: retokenization drift per trajectory (counts, unchecked trajectories with why, bad lines), results one page at a time, each with a link to its first divergence. Same JSON as `rollout-lens drift --json`.",
  input: {
    file: fileArg,
    mode: z.enum(["roundtrip", "template", "text", "all"]).default("roundtrip"),
    ...page,
  },
  async run(args, ctx) {
    const loaded = await ctx.files.load(String(args.file));
    const modes = MODES[String(args.mode ?? "roundtrip")] ?? ["roundtrip"];
    const report = jsonReport(await ctx.checks.drift(loaded, modes));
    const results = (report.results ?? []) as Record<string, unknown>[];
    const drifted = results.filter((r) => r.first_divergence_index !== null);
    const index = new Map(loaded.rows.map((r) => [`${r.line}:${r.row}`, r.index]));
    const { items, next } = paged(drifted, Number(args.offset ?? 0), Number(args.limit ?? 20));
    const { results: _all, path: _path, ...counts } = report;
    return {
      file: loaded.file.id,
      mode: args.mode ?? "roundtrip",
      ...counts,
      unchecked_trajectories: (counts.unchecked_trajectories as unknown[]).slice(0, 50),
      drifted_results: items.map((r) => {
        const row = index.get(`${r.line}:${r.row}`);
        const at = r.first_divergence_index as number;
        return row === undefined ? r : { ...r, url: rowUrl(ctx, loaded.file.id, row, at) };
      }),
      next_offset: next,
      url: fileUrl(ctx, loaded.file.id),
    };
  },
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

const checkMismatch: McpTool = {
  name: "check_mismatch",
  description:
    "The `mismatch` command on one file: training–inference mismatch between two logprob lanes under a correction, the file's summary and per-trajectory statistics one page at a time (worst first), with the worst tokens linked.",
  input: {
    file: fileArg,
    lanes: z
      .tuple([z.string().min(1).max(64), z.string().min(1).max(64)])
      .optional()
      .describe("lanes a and b (default: trainer/rescored/reference vs sampled)"),
    correction: z
      .enum(["token-trunc", "token-mask", "seq", "seq-trunc", "geo"])
      .default("token-trunc"),
    cap: z.number().positive().max(1e6).default(2),
    ...page,
  },
  async run(args, ctx) {
    const loaded = await ctx.files.load(String(args.file));
    const c = correctionOf(args);
    const lanes = args.lanes as [string, string] | undefined;
    const r = await ctx.checks.mismatch(loaded, c, lanes);
    const worst = [...r.trajectories].sort((a, b) => b.stats.maxAbsDelta - a.stats.maxAbsDelta);
    const index = new Map(loaded.rows.map((x) => [`${x.line}:${x.row}`, x.index]));
    const { items, next } = paged(worst, Number(args.offset ?? 0), Number(args.limit ?? 20));
    return {
      file: loaded.file.id,
      correction: c,
      format: r.format,
      summary: r.summary,
      ...(r.summary.compared === 0 ? { nothing_compared: true } : {}),
      trajectories: items.map((t) => {
        const row = index.get(`${t.line}:${t.row}`);
        const { segments: _s, ...stats } = t.stats;
        return {
          ...{ id: t.id, line: t.line, row: row ?? null, lanes: t.lanes, stats },
          ...(row === undefined ? {} : { url: rowUrl(ctx, loaded.file.id, row, t.stats.maxAt) }),
        };
      }),
      next_offset: next,
      skipped: r.skipped.slice(0, 20),
      skipped_count: r.skipped.length,
      bad_lines: r.errors.length,
      ...(r.readError === undefined ? {} : { read_error: r.readError }),
    };
  },
};

const stepTrends: McpTool = {
  name: "step_trends",
  description:
    "Per-step statistics of a training run (a directory the server was started with): reward, length, drift rate and mismatch per step, as the run charts show them.",
  input: {
    run: z.string().min(1).max(64).optional().describe("a run id (r1, ...); default: every run"),
  },
  async run(args, ctx) {
    const files = ctx.files.registry
      .list()
      .filter((f) => f.run && (!args.run || f.run.id === args.run));
    if (files.length === 0) {
      throw new Error(
        args.run
          ? `no run with id "${String(args.run)}"`
          : "no run directory was given to this server",
      );
    }
    const byStep = new Map<
      string,
      { run: string; step: number; parts: StepStats[]; files: string[] }
    >();
    for (const f of files) {
      const stats = await computeStepStats(f.path, ctx.files.tokenizers, mappingOf(f));
      const key = `${f.run?.id}:${f.run?.step}`;
      const entry = byStep.get(key) ?? {
        run: f.run?.id ?? "",
        step: f.run?.step ?? 0,
        parts: [],
        files: [],
      };
      entry.parts.push(stats);
      entry.files.push(f.id);
      byStep.set(key, entry);
    }
    return {
      steps: [...byStep.values()].map((s) => ({
        run: s.run,
        step: s.step,
        files: s.files,
        stats: mergeStepStats(s.parts) ?? null,
      })),
    };
  },
};

export const CHECK_TOOLS: readonly McpTool[] = [checkDrift, checkMismatch, stepTrends];
export type { ToolContext };

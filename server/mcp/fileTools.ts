import { groupStats } from "../../src/core/files/groupStats";
import { type DriftFilter, type RowQuery, selectRows } from "../../src/core/files/rowQuery";
import type { RowSummary } from "../../src/core/files/rowSummary";
import { trajectoryIdsAbsentReason } from "../../src/core/formats/idsAbsent";
import { TOKENIZER_REASON_TEXT } from "../../src/core/tokenizer/chooseTokenizer";
import { laneNames } from "../../src/core/trajectory/lanes";
import { describeFile as describeListed } from "../files/fileRegistry";
import { type GroupFinding, rowsWithFinding } from "./groupTools";
import type { LoadedFile } from "./mcpFiles";
import { findIds, tokenWindow } from "./tokenWindow";
import { fileUrl, rowUrl, type ToolContext, type ToolRun } from "./toolTypes";

// The file tools' implementations (their schemas: toolSpecs.ts).

export const listFiles: ToolRun = async (_args, rt, ctx) => {
  const files = await Promise.all(rt.files.registry.list().map(describeListed));
  return {
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      size: f.size ?? null,
      ...(f.run ? { run: f.run.name, step: f.run.step } : {}),
      url: fileUrl(ctx, f.id),
    })),
  };
};

/** The tokenizer a file's ids are read with, and why, as `drift --json` says it. */
export function tokenizerOf(loaded: LoadedFile) {
  const t = loaded.tokenizer;
  return t === null
    ? null
    : {
        name: t.name,
        reason: t.reason,
        why: t.reason === "picked" ? "given with --tokenizer" : TOKENIZER_REASON_TEXT[t.reason],
      };
}

export const describeFile: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const first = loaded.rows.length > 0 ? await loaded.trajectory(0) : undefined;
  return {
    id: loaded.file.id,
    name: loaded.file.name,
    format: loaded.format,
    ...(loaded.file.run ? { run: loaded.file.run.name, step: loaded.file.run.step } : {}),
    rows: loaded.rows.length,
    lines: loaded.lines,
    bad_lines: loaded.errorCount,
    ...(loaded.unit === undefined ? {} : { unit: loaded.unit }),
    errors: loaded.errors.slice(0, 10),
    groups: groupStats(loaded.rows).length,
    lanes: first ? laneNames(first) : [],
    tokens: loaded.rows.reduce((n, r) => n + r.totalTokens, 0),
    trainable_tokens: loaded.rows.reduce((n, r) => n + r.trainableTokens, 0),
    tokenizer: tokenizerOf(loaded),
    url: fileUrl(ctx, loaded.file.id),
  };
};

function rowOut(ctx: ToolContext, fileId: string, r: RowSummary, matchAt?: number) {
  return {
    row: r.index,
    id: r.id,
    line: r.line,
    status: r.status,
    reward: r.reward ?? null,
    total_tokens: r.totalTokens,
    trainable_tokens: r.trainableTokens,
    turns: r.turns,
    tool_calls: r.toolCalls,
    tool_errors: r.toolErrors,
    finish_reason: r.finishReason ?? null,
    mean_logprob: r.meanLogprob ?? null,
    group: r.group ?? null,
    ...(matchAt === undefined ? {} : { match_at: matchAt }),
    url: rowUrl(ctx, fileId, r.index, matchAt),
  };
}

/** The app's row query (core/files/rowQuery) from the tool's snake_case arguments. */
function rowQueryOf(a: Record<string, unknown>): RowQuery {
  const pick = <T>(key: string) => a[key] as T | undefined;
  const entries = {
    status: pick<RowQuery["status"]>("status"),
    rewardMin: pick<number>("reward_min"),
    rewardMax: pick<number>("reward_max"),
    lengthMin: pick<number>("length_min"),
    lengthMax: pick<number>("length_max"),
    turnsMin: pick<number>("turns_min"),
    turnsMax: pick<number>("turns_max"),
    hasToolErrors: pick<boolean>("tool_errors"),
    finishReason: pick<string>("finish"),
    group: pick<string>("group"),
    text: pick<string>("text"),
    drift: pick<DriftFilter>("drift"),
    mismatchAbove: pick<number>("mismatch_above"),
    sort: pick<RowQuery["sort"]>("sort"),
    descending: pick<boolean>("descending"),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/** The rows among `picked` whose ids hold `needle`, with where it starts. */
async function rowsWithIds(loaded: LoadedFile, picked: readonly number[], needle: number[]) {
  const rows: number[] = [];
  const at = new Map<number, number>();
  for (const row of picked) {
    const found = findIds(await loaded.trajectory(row), needle);
    if (found < 0) continue;
    rows.push(row);
    at.set(row, found);
  }
  return { rows, at };
}

export const findRows: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const query = rowQueryOf(args);
  const drift = query.drift === undefined ? [] : await rt.checks.rowDrift(loaded);
  const mismatch = query.mismatchAbove === undefined ? [] : await rt.checks.rowMismatch(loaded);
  let picked = selectRows(loaded.rows, query, drift, mismatch);
  const finding = args.group_finding as GroupFinding | undefined;
  if (finding) {
    const rows = await rowsWithFinding(loaded, rt, finding);
    picked = picked.filter((row) => rows.has(row));
  }
  let matchAt = new Map<number, number>();
  const needle = args.token_ids as number[] | undefined;
  if (needle) ({ rows: picked, at: matchAt } = await rowsWithIds(loaded, picked, needle));
  const offset = Number(args.offset ?? 0);
  const page = picked.slice(offset, offset + Number(args.limit ?? 50));
  return {
    file: loaded.file.id,
    total: picked.length,
    offset,
    rows: page.map((i) =>
      rowOut(ctx, loaded.file.id, loaded.rows[i] as RowSummary, matchAt.get(i)),
    ),
    next_offset: offset + page.length < picked.length ? offset + page.length : null,
  };
};

export const getTokens: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const row = Number(args.row);
  const t = await loaded.trajectory(row);
  const tokenizer = await rt.checks.tokenizerOf(loaded);
  const start = Number(args.start ?? 0);
  const { total, tokens } = tokenWindow(t, start, Number(args.count ?? 200), tokenizer);
  const end = start + tokens.length;
  const idsAbsent = trajectoryIdsAbsentReason(t);
  return {
    file: loaded.file.id,
    row,
    id: t.id,
    total_tokens: total,
    start,
    tokens,
    next_start: end < total ? end : null,
    tokenizer: tokenizerOf(loaded),
    // A text-only row (no ids): why, in its writer's words, rather than a silent empty window.
    ...(idsAbsent === undefined ? {} : { ids_absent: idsAbsent }),
    url: rowUrl(ctx, loaded.file.id, row, start),
  };
};

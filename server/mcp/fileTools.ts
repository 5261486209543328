import { z } from "zod";
import { groupStats } from "../../src/core/files/groupStats";
import {
  type DriftFilter,
  type RowQuery,
  SORT_COLUMNS,
  selectRows,
} from "../../src/core/files/rowQuery";
import type { RowSummary } from "../../src/core/files/rowSummary";
import { TOKENIZER_REASON_TEXT } from "../../src/core/tokenizer/chooseTokenizer";
import { laneNames } from "../../src/core/trajectory/lanes";
import { describeFile } from "../files/fileRegistry";
import type { LoadedFile } from "./mcpFiles";
import { findIds, tokenWindow } from "./tokenWindow";
import type { McpTool, ToolContext } from "./toolTypes";
import { fileUrl, rowUrl } from "./toolTypes";

/** Rows a `find_rows` page holds at the most; tokens a `get_tokens` window holds. */
export const MAX_ROWS_PAGE = 200;
export const MAX_TOKEN_WINDOW = 2000;

const fileArg = z
  .string()
  .min(1)
  .max(64)
  .describe("a file id from list_files (f1, f2, ..., episodes)");

const listFiles: McpTool = {
  name: "list_files",
  description:
    "The rollout files this server was started with (run directories as their step files, in step order), with ids for the other tools and links into the app.",
  input: {},
  async run(_args, ctx) {
    const files = await Promise.all(ctx.files.registry.list().map(describeFile));
    return {
      files: files.map((f) => ({
        id: f.id,
        name: f.name,
        size: f.size ?? null,
        ...(f.run ? { run: f.run.name, step: f.run.step } : {}),
        url: fileUrl(ctx, f.id),
      })),
    };
  },
};

function tokenizerOf(loaded: LoadedFile) {
  const t = loaded.tokenizer;
  return t === null
    ? null
    : {
        name: t.name,
        reason: t.reason,
        why: t.reason === "picked" ? "given with --tokenizer" : TOKENIZER_REASON_TEXT[t.reason],
      };
}

const describeFileTool: McpTool = {
  name: "describe_file",
  description:
    "A file at a glance: its format, rows, bad lines, groups, the logprob lanes it carries and the tokenizer its ids are read with (and why).",
  input: { file: fileArg },
  async run(args, ctx) {
    const loaded = await ctx.files.load(String(args.file));
    const first = loaded.rows.length > 0 ? await loaded.trajectory(0) : undefined;
    const groups = groupStats(loaded.rows);
    return {
      id: loaded.file.id,
      name: loaded.file.name,
      format: loaded.format,
      ...(loaded.file.run ? { run: loaded.file.run.name, step: loaded.file.run.step } : {}),
      rows: loaded.rows.length,
      lines: loaded.lines,
      bad_lines: loaded.errorCount,
      errors: loaded.errors.slice(0, 10),
      groups: groups.length,
      lanes: first ? laneNames(first) : [],
      tokens: loaded.rows.reduce((n, r) => n + r.totalTokens, 0),
      trainable_tokens: loaded.rows.reduce((n, r) => n + r.trainableTokens, 0),
      tokenizer: tokenizerOf(loaded),
      url: fileUrl(ctx, loaded.file.id),
    };
  },
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

const findRowsInput = {
  file: fileArg,
  status: z
    .array(z.enum(["completed", "truncated", "aborted", "running"]))
    .max(4)
    .optional(),
  reward_min: z.number().optional(),
  reward_max: z.number().optional(),
  length_min: z.number().int().optional(),
  length_max: z.number().int().optional(),
  turns_min: z.number().int().optional(),
  turns_max: z.number().int().optional(),
  tool_errors: z.boolean().optional().describe("true: some tool call failed; false: none did"),
  finish: z.enum(["stop", "length", "abort", "none"]).optional(),
  group: z.string().max(512).optional(),
  text: z.string().min(1).max(512).optional().describe("case-insensitive substring of id or text"),
  token_ids: z
    .array(z.number().int().nonnegative())
    .min(1)
    .max(256)
    .optional()
    .describe("rows whose ids contain this contiguous subsequence (match_at: its first position)"),
  drift: z
    .enum(["any", "none", "trained"])
    .optional()
    .describe("runs the round-trip drift check of the file first"),
  mismatch_above: z
    .number()
    .nonnegative()
    .optional()
    .describe("rows whose max |δ| between two logprob lanes exceeds this (runs the scan)"),
  sort: z.enum(SORT_COLUMNS).optional(),
  descending: z.boolean().optional(),
  offset: z.number().int().nonnegative().max(100_000_000).default(0),
  limit: z.number().int().min(1).max(MAX_ROWS_PAGE).default(50),
};

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

const findRows: McpTool = {
  name: "find_rows",
  description:
    "The file table's filters and sort (status, reward, length, turns, tool errors, finish reason, group, text, drift, mismatch) plus a token-id subsequence search, one page at a time.",
  input: findRowsInput,
  async run(args, ctx) {
    const loaded = await ctx.files.load(String(args.file));
    const query = rowQueryOf(args);
    const drift = query.drift === undefined ? [] : await ctx.checks.rowDrift(loaded);
    const mismatch = query.mismatchAbove === undefined ? [] : await ctx.checks.rowMismatch(loaded);
    let picked = selectRows(loaded.rows, query, drift, mismatch);
    const matchAt = new Map<number, number>();
    const needle = args.token_ids as number[] | undefined;
    if (needle) {
      const hits: number[] = [];
      for (const row of picked) {
        const at = findIds(await loaded.trajectory(row), needle);
        if (at >= 0) {
          hits.push(row);
          matchAt.set(row, at);
        }
      }
      picked = hits;
    }
    const offset = Number(args.offset ?? 0);
    const limit = Number(args.limit ?? 50);
    const page = picked.slice(offset, offset + limit);
    return {
      file: loaded.file.id,
      total: picked.length,
      offset,
      rows: page.map((i) =>
        rowOut(ctx, loaded.file.id, loaded.rows[i] as RowSummary, matchAt.get(i)),
      ),
      next_offset: offset + page.length < picked.length ? offset + page.length : null,
    };
  },
};

const getTokens: McpTool = {
  name: "get_tokens",
  description:
    "A window of a row's tokens: id, text (decoded with the file's tokenizer), segment and turn, loss mask, sampled logprob, other lanes and the recorded top-k alternatives.",
  input: {
    file: fileArg,
    row: z.number().int().nonnegative().describe("0-based row, as find_rows and the app count"),
    start: z.number().int().nonnegative().default(0),
    count: z.number().int().min(1).max(MAX_TOKEN_WINDOW).default(200),
  },
  async run(args, ctx) {
    const loaded = await ctx.files.load(String(args.file));
    const row = Number(args.row);
    const t = await loaded.trajectory(row);
    const tokenizer = await ctx.checks.tokenizerOf(loaded);
    const start = Number(args.start ?? 0);
    const { total, tokens } = tokenWindow(t, start, Number(args.count ?? 200), tokenizer);
    const end = start + tokens.length;
    return {
      file: loaded.file.id,
      row,
      id: t.id,
      total_tokens: total,
      start,
      tokens,
      next_start: end < total ? end : null,
      tokenizer: tokenizerOf(loaded),
      url: rowUrl(ctx, loaded.file.id, row, start),
    };
  },
};

export const FILE_TOOLS: readonly McpTool[] = [listFiles, describeFileTool, findRows, getTokens];

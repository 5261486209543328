import { z } from "zod";
import { SORT_COLUMNS } from "../../src/core/files/rowQuery";
import { CORRECTION_PARAMS } from "../../src/core/mismatch/corrections/catalog";
import type { McpTool, ToolRun } from "./toolTypes";

// The tools' names, words and argument schemas: all that start-up loads. Each implementation
// (fileTools.ts, checkTools.ts, with the readers and tokenizers) is imported on its first call.

/** Rows a `find_rows` page holds at the most; tokens a `get_tokens` window holds. */
export const MAX_ROWS_PAGE = 200;
export const MAX_TOKEN_WINDOW = 2000;

const fileArg = z
  .string()
  .min(1)
  .max(64)
  .describe("a file id from list_files (f1, f2, ..., r1-<hash> for a run's step files, episodes)");

const page = (limit: number) => ({
  offset: z.number().int().nonnegative().max(100_000_000).default(0),
  limit: z.number().int().min(1).max(MAX_ROWS_PAGE).default(limit),
});

const fileTools = () => import("./fileTools");
const checkTools = () => import("./checkTools");
const groupTools = () => import("./groupTools");
const upstreamTools = () => import("./upstreamTools");
/** Every correction `replay` may name (`mismatch --correction`'s names). */
const CORRECTION_NAMES = Object.keys(CORRECTION_PARAMS) as [string, ...string[]];
const FINDINGS = ["zero-variance", "duplicates", "multiplicity"] as const;

function tool(
  name: string,
  description: string,
  input: McpTool["input"],
  load: () => Promise<ToolRun>,
): McpTool {
  return { name, description, input, load };
}

const FIND_ROWS_INPUT = {
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
  group_finding: z
    .enum(FINDINGS)
    .optional()
    .describe("rows of groups with this finding (duplicates: the duplicate members only)"),
  sort: z.enum(SORT_COLUMNS).optional(),
  descending: z.boolean().optional(),
  ...page(50),
};

export const MCP_TOOLS: readonly McpTool[] = [
  tool(
    "list_files",
    "The rollout files this server was started with (run directories as their step files, in step order), with ids for the other tools and links into the app.",
    {},
    async () => (await fileTools()).listFiles,
  ),
  tool(
    "describe_file",
    "A file at a glance: its format, rows, bad lines, groups, the logprob lanes it carries and the tokenizer its ids are read with (and why).",
    { file: fileArg },
    async () => (await fileTools()).describeFile,
  ),
  tool(
    "find_rows",
    "The file table's filters and sort (status, reward, length, turns, tool errors, finish reason, group, text, drift, mismatch) plus a token-id subsequence search, one page at a time.",
    FIND_ROWS_INPUT,
    async () => (await fileTools()).findRows,
  ),
  tool(
    "get_tokens",
    "A window of a row's tokens: id, text (decoded with the file's tokenizer), segment and turn, loss mask, sampled logprob, other lanes and the recorded top-k alternatives.",
    {
      file: fileArg,
      row: z.number().int().nonnegative().describe("0-based row, as find_rows and the app count"),
      start: z.number().int().nonnegative().default(0),
      count: z.number().int().min(1).max(MAX_TOKEN_WINDOW).default(200),
    },
    async () => (await fileTools()).getTokens,
  ),
  tool(
    "check_drift",
    "The `drift` command on one file: retokenization drift per trajectory (counts, unchecked trajectories with why, bad lines), drifted results one page at a time, each with a link to its first divergence. The counts are those of `rollout-lens drift --json`.",
    {
      file: fileArg,
      mode: z.enum(["roundtrip", "template", "text", "all"]).default("roundtrip"),
      ...page(20),
    },
    async () => (await checkTools()).checkDrift,
  ),
  tool(
    "check_mismatch",
    "The `mismatch` command on one file: training–inference mismatch between two logprob lanes under a correction, the file's summary and per-trajectory statistics one page at a time (worst first), each linked to its largest |δ|.",
    {
      file: fileArg,
      lanes: z
        .tuple([z.string().min(1).max(64), z.string().min(1).max(64)])
        .optional()
        .describe("lanes a and b (default: trainer/rescored/reference vs sampled)"),
      correction: z
        .enum(["token-trunc", "token-mask", "seq", "seq-trunc", "geo"])
        .default("token-trunc"),
      cap: z.number().positive().max(1e6).default(2),
      replay: z
        .array(z.enum(CORRECTION_NAMES))
        .max(CORRECTION_NAMES.length)
        .optional()
        .describe(
          "corrections replayed over the whole file as one batch, as `mismatch --correction A,B` does: per correction the fraction masked/clipped, ESS and the rows it drops (docs/mismatch.md lists them)",
        ),
      thresholds: z
        .record(z.string().max(32), z.record(z.string().max(32), z.number().finite()))
        .optional()
        .describe(
          'thresholds by correction, e.g. {"icepop": {"alpha": 0.5, "beta": 5}}; defaults for the rest',
        ),
      ...page(20),
    },
    async () => (await checkTools()).checkMismatch,
  ),
  tool(
    "group_findings",
    "The `groups` command on one file: each group's (or recorded tree's) forensics — duplicate members, zero variance with its cause, gradient multiplicity, branch points, computed vs recorded advantages — with the member rows and a link to the group's forest.",
    { file: fileArg, only: z.enum(FINDINGS).optional(), ...page(20) },
    async () => (await groupTools()).groupFindings,
  ),
  tool(
    "rescore",
    "Scores a row's exact ids with SGLang (only when the server was started with an upstream): the rescored lane against the sampled logprobs, after checking that the upstream's model family reads these ids (force: true overrides). The lane is kept for the session (get_tokens shows it); the file is never written.",
    {
      file: fileArg,
      row: z.number().int().nonnegative(),
      force: z.boolean().optional().describe("rescore even when the upstream's family differs"),
    },
    async () => (await upstreamTools()).rescore,
  ),
  tool(
    "branch",
    "Forks a row at token `index` and runs `n` branches from exactly its ids 0..index-1 (only with an upstream; stops at the running-episode cap). Branches go to the data directory's episodes.jsonl (the file `episodes`), never to the served file.",
    {
      file: fileArg,
      row: z.number().int().nonnegative(),
      index: z.number().int().positive().describe("token N: the branches start from ids 0..N-1"),
      n: z.number().int().min(1).max(64).default(1),
      temperature: z.number().nonnegative().max(10).optional(),
      tool_result: z.string().max(100_000).optional().describe("replace the tool result at N"),
    },
    async () => (await upstreamTools()).branch,
  ),
  tool(
    "step_trends",
    "Per-step statistics of a training run (a directory the server was started with): reward, length, drift rate and mismatch per step, as the run charts show them.",
    {
      run: z.string().min(1).max(64).optional().describe("a run id (r1, ...); default: every run"),
    },
    async () => (await checkTools()).stepTrends,
  ),
];

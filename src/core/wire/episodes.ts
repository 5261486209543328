import { z } from "zod";
import {
  finishReasonSchema,
  logprobsSchema,
  mask01Schema,
  tokenIdsSchema,
} from "../formats/wireSchemas";
import { toolCallParserNames } from "../toolcalls/registry";
import type { GenerateCall, Segment, ToolCall, TrajectoryStatus } from "../trajectory/types";

/** Body of `POST /api/episodes`. */
export const startEpisodeSchema = z
  .object({
    prompt: z.string().min(1, "prompt must not be empty").max(1_000_000),
    system: z.string().max(1_000_000).optional(),
    tools: z.array(z.string().min(1).max(64)).max(64).optional(),
    max_iterations: z.number().int().min(0).max(1_000).optional(),
    sampling_params: z.record(z.string(), z.unknown()).optional(),
    policy: z.string().max(64).optional(),
    mock_replies: z.record(z.string(), z.array(z.string().max(1_000_000)).max(1_000)).optional(),
    enable_thinking: z.boolean().optional(),
    stream: z.boolean().optional(),
    /** A tokenizer of the catalog (`GET /api/tokenizers`); its family decides suffix and tool calls. */
    tokenizer: z.string().min(1, "tokenizer must not be empty").max(200).optional(),
    /**
     * The tool-call parser the model's output is read with, when its family's default is not the
     * model's (docs/templates.md): `qwen_xml` for Qwen3-Coder, `glm` for GLM-4.5/4.6, …
     */
    tool_call_parser: z
      .string()
      .refine((name) => toolCallParserNames.includes(name), {
        message: `tool_call_parser must be one of ${toolCallParserNames.join(", ")}`,
      })
      .optional(),
    /** Alternatives recorded per model token (SGLang `top_logprobs_num`); 0 turns them off. */
    top_logprobs_num: z
      .number()
      .int("top_logprobs_num must be a whole number")
      .min(0, "top_logprobs_num must be between 0 and 20")
      .max(20, "top_logprobs_num must be between 0 and 20")
      .optional(),
  })
  .strict();

export type StartEpisodeRequest = z.infer<typeof startEpisodeSchema>;

/** Most branches one request may start (`n`). */
export const MAX_BRANCHES = 64;

/** Where a branch forks: an episode, or a file row (`row`, optionally within line `line`). */
export const forkSpecSchema = z
  .object({
    episode: z.string().min(1).max(200).optional(),
    file: z.string().min(1).max(64).optional(),
    /** The file row: the row-th trajectory of the file (0-based), or of line `line` when given. */
    row: z.int().nonnegative().optional(),
    /** 1-based line of the file (rows of a group line are numbered from 0 within it). */
    line: z.int().min(1).optional(),
    /** Token N: the branch starts from the parent's ids 0..N-1. */
    index: z.int().nonnegative(),
    /** Replaces the tool result(s) of the tool segment starting at N (one per call, in order). */
    tool_result: z
      .union([z.string().max(1_000_000), z.array(z.string().max(1_000_000)).min(1).max(64)])
      .optional(),
  })
  .strict()
  .check((ctx) => {
    const { episode, file, row } = ctx.value;
    if ((episode === undefined) === (file === undefined)) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: "give exactly one of episode (an episode id) or file (a file id with its row)",
      });
    } else if (file !== undefined && row === undefined) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        path: ["row"],
        message: "a file fork needs the row to branch",
      });
    }
  });

export type ForkSpec = z.infer<typeof forkSpecSchema>;

/**
 * Body of `POST /api/episodes` that branches an existing trajectory: the fork, how many branches
 * (`n`, each its own seed), and the settings of a normal episode except its prompt.
 */
export const forkEpisodeSchema = startEpisodeSchema
  // A branch goes on in its parent's ids, so it keeps the server's tokenizer.
  .omit({ prompt: true, system: true, tokenizer: true })
  .extend({
    fork: forkSpecSchema,
    n: z.int().min(1).max(MAX_BRANCHES, `n must be at most ${MAX_BRANCHES}`).optional(),
  })
  .strict();

export type ForkEpisodeRequest = z.infer<typeof forkEpisodeSchema>;

/** Either body of `POST /api/episodes`: with `fork` a branch request, else a new episode. */
export const episodeRequestSchema = z.unknown().transform((raw, ctx) => {
  const isFork = typeof raw === "object" && raw !== null && "fork" in raw;
  const parsed = (isFork ? forkEpisodeSchema : startEpisodeSchema).safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    ctx.issues.push({ code: "custom", input: raw, path: issue.path, message: issue.message });
  }
  return z.NEVER;
});

/**
 * `episodeRequestSchema` that also checks a new episode's `tokenizer` against the catalog's
 * names: an unknown one is refused with the field and every choice named.
 */
export function episodeRequestSchemaFor(names: readonly string[]) {
  return episodeRequestSchema.check((ctx) => {
    const value = ctx.value;
    if (!("tokenizer" in value) || value.tokenizer === undefined) return;
    if (names.includes(value.tokenizer)) return;
    ctx.issues.push({
      code: "custom",
      input: value.tokenizer,
      path: ["tokenizer"],
      message: `unknown tokenizer "${value.tokenizer}"; choose one of ${names.join(", ")}`,
    });
  });
}

/** Body of `POST /api/episodes/:id/human-reply`. */
export const humanReplySchema = z.object({ reply: z.string().max(1_000_000) }).strict();

/** One row of `GET /api/episodes`. */
export interface EpisodeSummary {
  readonly id: string;
  readonly status: TrajectoryStatus;
  readonly createdAt: string;
  readonly prompt: string;
  readonly tokens: number;
  readonly trainableTokens: number;
  readonly turns: number;
  readonly toolCalls: number;
  /** A branch: the episode (or file row) it was forked from, and the token it departs at. */
  readonly parentId?: string;
  readonly forkIndex?: number;
  readonly reward?: number;
}

/** How an episode stands (`running`) or ended; the `status` of its trajectory. */
export const trajectoryStatusSchema = z.enum(["running", "completed", "truncated", "aborted"]);

/** A parsed tool call as the browser receives it (`ToolCall`, camelCase). */
const toolCallSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    raw: z.string(),
    span: z.tuple([z.int(), z.int()]).readonly(),
    error: z.string().optional(),
    result: z.string().optional(),
    resultIsError: z.boolean().optional(),
  })
  .readonly();

/** Per token: its top alternatives, or null where none were returned. */
const topLogprobsSchema = z
  .array(
    z
      .array(z.object({ tokenId: z.int(), logprob: z.number() }))
      .readonly()
      .nullable(),
  )
  .readonly();

/** A segment as the browser receives it (`Segment`, camelCase, token arrays inline). */
const segmentSchema = z
  .object({
    kind: z.enum(["prompt", "model", "tool"]),
    turn: z.int().nonnegative(),
    tokenIds: tokenIdsSchema.readonly(),
    lossMask: mask01Schema.readonly(),
    logprobs: logprobsSchema.readonly(),
    topLogprobs: topLogprobsSchema.optional(),
    keptTokenIds: z
      .array(z.array(z.int().nonnegative()).readonly().nullable())
      .readonly()
      .optional(),
    text: z.string().optional(),
    toolCalls: z.array(toolCallSchema).readonly().optional(),
    finishReason: finishReasonSchema.optional(),
    cutoff: z.boolean().optional(),
    cutoffReason: z.string().optional(),
    edited: z.boolean().optional(),
  })
  .readonly();

/** One `/generate` call as the browser receives it (`GenerateCall`, camelCase). */
const generateCallSchema = z
  .object({
    rid: z.string(),
    inputLen: z.int().nonnegative(),
    outputLen: z.int().nonnegative(),
    finishReason: finishReasonSchema.nullable(),
    cachedTokens: z.int().nonnegative().optional(),
    e2eLatency: z.number().optional(),
    weightVersion: z.string().optional(),
    upstream: z.string().optional(),
    retries: z
      .array(
        z
          .object({
            rid: z.string(),
            upstream: z.string().optional(),
            error: z.string(),
            backoffMs: z.number(),
          })
          .readonly(),
      )
      .readonly()
      .optional(),
  })
  .readonly();

/**
 * Server-Sent Events of one episode, in order; `seq` is the SSE id (replayable from 0) and the
 * `event:` name is the `type`. The one definition: the server's tests validate what it emits with
 * it, the browser parses what it receives with it, and `EpisodeEvent` is its type.
 */
export const episodeEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("started"), id: z.string(), upstream: z.string(), model: z.string() }),
  z.object({ type: z.literal("segment"), index: z.int().nonnegative(), segment: segmentSchema }),
  /**
   * What a streaming turn added since the previous `delta`: its new token ids with their logprobs
   * (and top-k), the new text, and the turn's token count so far. The turn's `segment` follows.
   */
  z.object({
    type: z.literal("delta"),
    turn: z.int(),
    ids: tokenIdsSchema.readonly(),
    logprobs: logprobsSchema.readonly(),
    topLogprobs: topLogprobsSchema.optional(),
    text: z.string(),
    tokens: z.int().nonnegative(),
  }),
  /** One `/generate` call of the episode, after the segment it produced (if any). */
  z.object({ type: z.literal("call"), call: generateCallSchema }),
  z.object({ type: z.literal("tool_call"), segmentIndex: z.int(), call: toolCallSchema }),
  z.object({
    type: z.literal("tool_result"),
    segmentIndex: z.int(),
    callId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
  z.object({
    type: z.literal("waiting_human"),
    callId: z.string(),
    question: z.string(),
    timeoutMs: z.number().nonnegative(),
    /** When the wait ends (ms since the epoch), so a replayed event still shows the right time. */
    deadline: z.number(),
  }),
  z.object({ type: z.literal("cutoff"), segmentIndex: z.int(), reason: z.string() }),
  /** `reason` is the trajectory's `endReason`. */
  z.object({
    type: z.literal("end"),
    status: trajectoryStatusSchema,
    reason: z.string().optional(),
  }),
]);

export type EpisodeEvent = z.infer<typeof episodeEventSchema>;
export type EpisodeEventType = EpisodeEvent["type"];

/** Every event name the server sends, for `EventSource.addEventListener`. */
export const EPISODE_EVENT_TYPES: readonly EpisodeEventType[] = episodeEventSchema.options.map(
  (option) => option.shape.type.value,
);

// The wire shapes and the trajectory types describe the same objects: each must fit the other.
type Fits<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const segmentFits: Fits<Segment, z.infer<typeof segmentSchema>> = true;
const toolCallFits: Fits<ToolCall, z.infer<typeof toolCallSchema>> = true;
const statusFits: Fits<TrajectoryStatus, z.infer<typeof trajectoryStatusSchema>> = true;
const callFits: Fits<GenerateCall, z.infer<typeof generateCallSchema>> = true;
void [segmentFits, toolCallFits, statusFits, callFits];

/** Parses one SSE event's data into an EpisodeEvent, or says which field was wrong. */
export function parseEpisodeEvent(
  data: string,
): { ok: true; event: EpisodeEvent } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, error: "event data is not JSON" };
  }
  const result = episodeEventSchema.safeParse(value);
  if (result.success) return { ok: true, event: result.data };
  const issue = result.error.issues[0];
  return { ok: false, error: `field ${issue?.path.join(".") || "(event)"}: ${issue?.message}` };
}

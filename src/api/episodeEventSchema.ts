import { z } from "zod";
import {
  finishReasonSchema,
  logprobsSchema,
  mask01Schema,
  tokenIdsSchema,
} from "../core/formats/wireSchemas";
import type { EpisodeEvent } from "../core/wire/episodes";

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  raw: z.string(),
  span: z.tuple([z.int(), z.int()]),
  error: z.string().optional(),
  result: z.string().optional(),
  resultIsError: z.boolean().optional(),
});

const segmentSchema = z.object({
  kind: z.enum(["prompt", "model", "tool"]),
  turn: z.int().nonnegative(),
  tokenIds: tokenIdsSchema,
  lossMask: mask01Schema,
  logprobs: logprobsSchema,
  topLogprobs: z
    .array(z.array(z.object({ tokenId: z.int(), logprob: z.number() })).nullable())
    .optional(),
  text: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  finishReason: finishReasonSchema.optional(),
  cutoff: z.boolean().optional(),
  cutoffReason: z.string().optional(),
});

const statusSchema = z.enum(["running", "completed", "truncated", "aborted"]);

/** The `data:` of one episode SSE event (its `event:` name is the `type`). */
export const episodeEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("started"), id: z.string(), upstream: z.string(), model: z.string() }),
  z.object({ type: z.literal("segment"), index: z.int().nonnegative(), segment: segmentSchema }),
  z.object({ type: z.literal("delta"), turn: z.int(), text: z.string(), tokens: z.int() }),
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
    deadline: z.number(),
  }),
  z.object({ type: z.literal("cutoff"), segmentIndex: z.int(), reason: z.string() }),
  z.object({ type: z.literal("end"), status: statusSchema, reason: z.string().optional() }),
]);

/** Every event name the server sends, for `EventSource.addEventListener`. */
export const EPISODE_EVENT_TYPES = [
  "started",
  "segment",
  "delta",
  "tool_call",
  "tool_result",
  "waiting_human",
  "cutoff",
  "end",
] as const satisfies readonly EpisodeEvent["type"][];

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

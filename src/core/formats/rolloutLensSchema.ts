import { z } from "zod";
import { laneInfosWireSchema, lanesWireSchema } from "./lanesWire";
import {
  anyNumber,
  callSchema,
  finishReasonSchema,
  logprobsSchema,
  mask01Schema,
  tokenIdsSchema,
} from "./wireSchemas";

/** The `format` value of every rollout-lens/v1 line. */
export const ROLLOUT_LENS_V1 = "rollout-lens/v1";

export const toolCallWireSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  raw: z.string(),
  span: z.tuple([z.int().nonnegative(), z.int().nonnegative()]),
  error: z.string().optional(),
  result: z.string().optional(),
  result_is_error: z.boolean().optional(),
});

const topLogprobWireSchema = z.object({ token_id: z.int().nonnegative(), logprob: anyNumber });

/** One segment: token offsets into the line's flat arrays, never a copy of the tokens. */
export const segmentWireSchema = z.object({
  kind: z.enum(["prompt", "model", "tool"]),
  /** A model segment with mask 0: produced by the model, not trained (Segment.untrained). */
  untrained: z.boolean().optional(),
  turn: z.int().nonnegative(),
  start: z.int().nonnegative(),
  end: z.int().nonnegative(),
  text: z.string().optional(),
  finish_reason: finishReasonSchema.optional(),
  tool_calls: z.array(toolCallWireSchema).optional(),
  cutoff: z.boolean().optional(),
  cutoff_reason: z.string().optional(),
  /** A tool segment whose result a branch replaced before it ran. */
  edited: z.boolean().optional(),
  /** Per token of the segment: its top alternatives, or null where none were returned. */
  top_logprobs: z.array(z.array(topLogprobWireSchema).nullable()).optional(),
  /** Per token of a model segment: the ids the sampler kept, or null where none were returned. */
  kept_token_ids: z.array(z.array(z.int().nonnegative()).nullable()).optional(),
});

export const chatMessageWireSchema = z.looseObject({ role: z.string(), content: z.string() });

/**
 * One rollout-lens/v1 line (docs/format.md). Also the wire shape the server sends, so the browser
 * parses live and stored trajectories with the same schema.
 */
export const rolloutLensLineSchema = z.object({
  format: z.literal(ROLLOUT_LENS_V1),
  id: z.string().min(1),
  created_at: z.string().optional(),
  status: z.enum(["running", "completed", "truncated", "aborted"]),
  end_reason: z.string().optional(),
  reward: anyNumber.nullable().optional(),
  model: z.string().optional(),
  tokenizer: z.string().optional(),
  sampling_params: z.record(z.string(), z.unknown()).optional(),
  group: z.string().optional(),
  /** A branch: the trajectory it was forked from, the token it departs at, the edited results. */
  parent_id: z.string().min(1).optional(),
  fork_index: z.int().nonnegative().optional(),
  fork_edit: z.object({ tool_results: z.array(z.string()) }).optional(),
  token_ids: tokenIdsSchema,
  loss_mask: mask01Schema,
  logprobs: logprobsSchema,
  segment_info: z.array(z.tuple([z.boolean(), z.int().nonnegative()])),
  segments: z.array(segmentWireSchema),
  /** Value the source stored at untrained positions instead of a logprob (slime: 0.0). */
  logprob_placeholder: z.number().optional(),
  calls: z.array(callSchema).optional(),
  /** Named per-token logprob lanes (trainer, reference, rescored...), each as long as token_ids. */
  logprob_lanes: lanesWireSchema.optional(),
  logprob_lane_info: laneInfosWireSchema.optional(),
  messages: z.array(chatMessageWireSchema).optional(),
  metadata: z.record(z.string(), z.unknown()),
});

export type RolloutLensLine = z.infer<typeof rolloutLensLineSchema>;
export type SegmentWire = z.infer<typeof segmentWireSchema>;

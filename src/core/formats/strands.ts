import { z } from "zod";
import {
  flattenSegments,
  type SegmentSpan,
  sliceSegments,
  spansFromSegmentInfo,
} from "../trajectory/flatten";
import type { ProvenFacts } from "../trajectory/invariants";
import type { GenerateCall, Trajectory, TrajectoryStatus } from "../trajectory/types";
import { fastLogprobs, fastMask01, fastTokenIds, provesSpans, safeParseFast } from "./fastArrays";
import { readLanesWire, writeLanesWire } from "./lanesWire";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";
import {
  anyNumber,
  callFromWire,
  callSchema,
  callToWire,
  lengthError,
  logprobsSchema,
  mask01Schema,
  remainder,
  tokenIdsSchema,
  zodFieldError,
} from "./wireSchemas";

/** The `format` value of the episode wrapper our own server writes (docs/format.md). */
export const STRANDS_TITO_V1 = "strands-tito/v1";

const strandsSchema = z.looseObject({
  format: z.string().optional(),
  episode_id: z.string().optional(),
  model: z.string().optional(),
  tokenizer: z.string().optional(),
  token_ids: tokenIdsSchema,
  loss_mask: mask01Schema,
  logprobs: logprobsSchema,
  segment_info: z.array(z.tuple([z.boolean(), z.int().nonnegative()])),
  reward: anyNumber.nullish(),
  calls: z.array(callSchema).optional(),
  stop_reason: z.string().optional(),
});

const fastStrandsSchema = strandsSchema.extend({
  token_ids: fastTokenIds,
  loss_mask: fastMask01,
  logprobs: fastLogprobs,
});

// Per-token arrays only shaped as arrays: provesSpans then proves every entry in one pass.
const shapeOnlyStrandsSchema = strandsSchema.extend({
  token_ids: z.custom<number[]>(Array.isArray),
  loss_mask: z.custom<(0 | 1)[]>(Array.isArray),
  logprobs: z.custom<(number | null)[]>(Array.isArray),
});

const ALL_PROVEN: ProvenFacts = { tokenIds: true, lossMask: true, modelLogprobs: true };

const ROLLOUT_KEYS = ["token_ids", "loss_mask", "logprobs", "segment_info"];
const WRAPPER_KEYS = ["format", "episode_id", "model", "tokenizer", "reward", "calls"];

function statusOf(
  stopReason: string | undefined,
  calls: readonly GenerateCall[] | undefined,
): TrajectoryStatus {
  const last = calls?.at(-1)?.finishReason?.type;
  if (last === "abort") return "aborted";
  // `tool_use` as the final stop reason means the limiter cut the episode after a tool call.
  if (last === "length" || stopReason === "max_tokens" || stopReason === "tool_use")
    return "truncated";
  return "completed";
}

/**
 * Reads a strands-sglang `Rollout` (v0.4 `model_dump`) or `TokenManager` dump, bare or inside the
 * `strands-tito/v1` episode wrapper. Segments come straight from `segment_info`.
 */
export function readStrands(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  // Fast path: a well-formed line is proven in one fused pass. Anything odd takes the exact path
  // below, so every verdict and error message is the one it always gave.
  const shaped = shapeOnlyStrandsSchema.safeParse(value);
  if (shaped.success) {
    const s = shaped.data;
    const n = s.token_ids.length;
    const spans = spansFromSegmentInfo(s.segment_info);
    const covered = spans.at(-1)?.end ?? 0;
    if (s.loss_mask.length === n && s.logprobs.length === n && covered === n) {
      if (provesSpans(s, spans)) return build(s, spans, context, ALL_PROVEN);
    }
  }
  const parsed = safeParseFast(fastStrandsSchema, strandsSchema, value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const s = parsed.data;
  const n = s.token_ids.length;
  if (s.loss_mask.length !== n)
    return { ok: false, error: lengthError("loss_mask", s.loss_mask.length, "token_ids", n) };
  if (s.logprobs.length !== n)
    return { ok: false, error: lengthError("logprobs", s.logprobs.length, "token_ids", n) };
  const spans = spansFromSegmentInfo(s.segment_info);
  const covered = spans.at(-1)?.end ?? 0;
  if (covered !== n) {
    return {
      ok: false,
      error: { field: "segment_info", message: `lengths sum to ${covered} but token_ids has ${n}` },
    };
  }
  // The schema checked token_ids; segments slice it. Masks are sliced as read, so still checked.
  return build(s, spans, context, { tokenIds: true });
}

function build(
  s: z.infer<typeof strandsSchema>,
  spans: readonly SegmentSpan[],
  context: ReadContext,
  proven: ProvenFacts,
): ReadResult {
  const isWrapped = s.format === STRANDS_TITO_V1;
  const consumed = new Set([...ROLLOUT_KEYS, ...(isWrapped ? WRAPPER_KEYS : [])]);
  const calls = isWrapped ? s.calls?.map(callFromWire) : undefined;
  const lanes = readLanesWire(s, s.token_ids.length);
  if (!lanes.ok) return { ok: false, error: lanes.error };
  consumed.add("logprob_lanes").add("logprob_lane_info");
  const t: Trajectory = {
    id: (isWrapped ? s.episode_id : undefined) ?? `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "strands",
    model: isWrapped ? s.model : undefined,
    tokenizer: isWrapped ? s.tokenizer : undefined,
    status: statusOf(s.stop_reason, calls),
    reward: isWrapped ? s.reward : undefined,
    segments: sliceSegments(
      { tokenIds: s.token_ids, lossMask: s.loss_mask, logprobs: s.logprobs },
      spans,
    ),
    calls,
    logprobLanes: lanes.lanes,
    logprobLaneInfo: lanes.info,
    metadata: remainder(s, consumed),
  };
  return { ok: true, trajectories: [t], proven };
}

/**
 * Writes a Trajectory as a strands line: the flat Rollout arrays, wrapped with episode metadata
 * (`strands-tito/v1`) unless `wrapped` is false. Metadata keys are written back verbatim.
 */
export function writeStrands(
  t: Trajectory,
  options: { wrapped?: boolean } = {},
): Record<string, unknown> {
  const flat = flattenSegments(t.segments);
  const arrays = {
    token_ids: flat.tokenIds,
    loss_mask: flat.lossMask,
    logprobs: flat.logprobs,
    segment_info: flat.segmentInfo,
  };
  const lanes = writeLanesWire(t);
  if (options.wrapped === false) return { ...t.metadata, ...arrays, ...lanes };
  const out: Record<string, unknown> = {
    format: STRANDS_TITO_V1,
    episode_id: t.id,
    ...t.metadata,
    ...arrays,
  };
  if (t.model !== undefined) out.model = t.model;
  if (t.tokenizer !== undefined) out.tokenizer = t.tokenizer;
  if (t.reward !== undefined) out.reward = t.reward;
  if (t.calls !== undefined) out.calls = t.calls.map(callToWire);
  return Object.assign(out, lanes);
}

export const strandsAdapter: FormatAdapter = {
  id: "strands",
  tokenFields: { tokenIds: "token_ids", lossMask: "loss_mask", logprobs: "logprobs" },
  detect: (v) =>
    v.format === STRANDS_TITO_V1 || ("token_ids" in v && "loss_mask" in v && "segment_info" in v),
  read: readStrands,
};

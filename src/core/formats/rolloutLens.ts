import { z } from "zod";
import { flattenSegments } from "../trajectory/flatten";
import type { ProvenFacts } from "../trajectory/invariants";
import type { Segment, ToolCall, Trajectory } from "../trajectory/types";
import { fastLogprobs, fastMask01, fastTokenIds, provesSpans, safeParseFast } from "./fastArrays";
import { checkLanesWire, lanesFromWire, writeLanesWire } from "./lanesWire";
import {
  ROLLOUT_LENS_V1,
  type RolloutLensLine,
  rolloutLensLineSchema,
  type SegmentWire,
} from "./rolloutLensSchema";
import type { FieldError, FormatAdapter, ReadContext, ReadResult } from "./types";
import { callFromWire, callToWire, lengthError, zodFieldError } from "./wireSchemas";

const fastLineSchema = rolloutLensLineSchema.extend({
  token_ids: fastTokenIds,
  loss_mask: fastMask01,
  logprobs: fastLogprobs,
});

// Per-token arrays only shaped as arrays: provesSpans then proves every entry in one pass.
const shapeOnlyLineSchema = rolloutLensLineSchema.extend({
  token_ids: z.custom<number[]>(Array.isArray),
  loss_mask: z.custom<(0 | 1)[]>(Array.isArray),
  logprobs: z.custom<(number | null)[]>(Array.isArray),
});

const ALL_PROVEN: ProvenFacts = { tokenIds: true, lossMask: true, modelLogprobs: true };

/** Reads one rollout-lens/v1 object (token index space offsets) into a Trajectory. */
export function readRolloutLens(value: unknown, context: ReadContext): ReadResult {
  // Fast path: a well-formed line is proven in one fused pass. Anything odd takes the exact path
  // below, so every verdict and error message is the one it always gave.
  const shaped = shapeOnlyLineSchema.safeParse(value);
  if (shaped.success && !checkLine(shaped.data) && provesSpans(shaped.data, shaped.data.segments)) {
    return build(shaped.data, context, ALL_PROVEN);
  }
  const parsed = safeParseFast(fastLineSchema, rolloutLensLineSchema, value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const line = parsed.data;
  const problem = checkLine(line);
  if (problem) return { ok: false, error: problem };
  // The schema checked token_ids; segments slice it. Masks are sliced as read, so still checked.
  return build(line, context, { tokenIds: true });
}

function build(line: RolloutLensLine, context: ReadContext, proven: ProvenFacts): ReadResult {
  const segments = line.segments.map((s) => segmentFromWire(line, s));
  const lanes = lanesFromWire(line.logprob_lanes, line.logprob_lane_info);
  const t: Trajectory = {
    id: line.id,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: ROLLOUT_LENS_V1,
    createdAt: line.created_at,
    model: line.model,
    tokenizer: line.tokenizer,
    samplingParams: line.sampling_params,
    status: line.status,
    reward: line.reward,
    segments,
    calls: line.calls?.map(callFromWire),
    messages: line.messages,
    group: line.group,
    logprobPlaceholder: line.logprob_placeholder,
    logprobLanes: lanes.lanes,
    logprobLaneInfo: lanes.info,
    metadata: line.metadata,
    ...lineageFromWire(line),
    ...endReasonFromWire(line),
  };
  return { ok: true, trajectories: [t], proven };
}

function lineageFromWire(line: RolloutLensLine): Pick<Trajectory, "lineage"> {
  if (line.parent_id === undefined || line.fork_index === undefined) return {};
  return {
    lineage: {
      parentId: line.parent_id,
      forkIndex: line.fork_index,
      ...(line.fork_edit ? { editedToolResults: line.fork_edit.tool_results } : {}),
    },
  };
}

/** Keys older versions wrote the end reason under, inside `metadata` (runner, and manager/recovery). */
const LEGACY_END_REASON_KEYS = ["end_reason", "abort_reason"] as const;

/**
 * The end reason of a line: `end_reason`, or on lines written before it existed the string in
 * `metadata.end_reason` / `metadata.abort_reason`, which then leaves the metadata (it is written
 * back as `end_reason`, so the reason is never stored twice).
 */
function endReasonFromWire(line: RolloutLensLine): {
  endReason?: string;
  metadata?: RolloutLensLine["metadata"];
} {
  if (line.end_reason !== undefined) return { endReason: line.end_reason };
  const key = LEGACY_END_REASON_KEYS.find((k) => typeof line.metadata[k] === "string");
  if (key === undefined) return {};
  const { [key]: reason, ...metadata } = line.metadata;
  return { endReason: String(reason), metadata };
}

function checkLine(line: RolloutLensLine): FieldError | undefined {
  const n = line.token_ids.length;
  if ((line.parent_id === undefined) !== (line.fork_index === undefined)) {
    const [has, lacks] =
      line.parent_id === undefined ? ["fork_index", "parent_id"] : ["parent_id", "fork_index"];
    return { field: lacks, message: `is missing while ${has} is set (a branch records both)` };
  }
  if (line.fork_index !== undefined && line.fork_index > n) {
    return { field: "fork_index", message: `is ${line.fork_index} but token_ids has ${n}` };
  }
  if (line.loss_mask.length !== n)
    return lengthError("loss_mask", line.loss_mask.length, "token_ids", n);
  if (line.logprobs.length !== n)
    return lengthError("logprobs", line.logprobs.length, "token_ids", n);
  if (line.segments.length !== line.segment_info.length) {
    return lengthError("segments", line.segments.length, "segment_info", line.segment_info.length);
  }
  let offset = 0;
  for (const [i, s] of line.segments.entries()) {
    const field = `segments[${i}]`;
    if (s.start !== offset || s.end < s.start) {
      return { field, message: `covers [${s.start}, ${s.end}) but must start at ${offset}` };
    }
    const [isOutput, length] = line.segment_info[i] ?? [false, 0];
    if (isOutput !== (s.kind === "model") || length !== s.end - s.start) {
      return {
        field: `segment_info[${i}]`,
        message: `[${isOutput}, ${length}] disagrees with ${field} (${s.kind}, ${s.end - s.start} tokens)`,
      };
    }
    for (const key of ["top_logprobs", "kept_token_ids"] as const) {
      const list = s[key];
      if (list && list.length !== s.end - s.start) {
        return lengthError(`${field}.${key}`, list.length, "the segment", s.end - s.start);
      }
    }
    offset = s.end;
  }
  if (offset !== n)
    return { field: "segments", message: `cover ${offset} tokens but token_ids has ${n}` };
  return checkLanesWire(line.logprob_lanes, line.logprob_lane_info, n);
}

function segmentFromWire(line: RolloutLensLine, s: SegmentWire): Segment {
  return {
    kind: s.kind,
    ...(s.kind === "model" && s.untrained ? { untrained: true } : {}),
    turn: s.turn,
    tokenIds: line.token_ids.slice(s.start, s.end),
    lossMask: line.loss_mask.slice(s.start, s.end),
    logprobs: line.logprobs.slice(s.start, s.end),
    topLogprobs: s.top_logprobs?.map(
      (alts) => alts?.map((a) => ({ tokenId: a.token_id, logprob: a.logprob })) ?? null,
    ),
    ...(s.kept_token_ids ? { keptTokenIds: s.kept_token_ids } : {}),
    text: s.text,
    toolCalls: s.tool_calls?.map(
      (c): ToolCall => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments,
        raw: c.raw,
        span: c.span,
        error: c.error,
        result: c.result,
        resultIsError: c.result_is_error,
      }),
    ),
    finishReason: s.finish_reason,
    cutoff: s.cutoff,
    cutoffReason: s.cutoff_reason,
    ...(s.edited ? { edited: true } : {}),
  };
}

/** Writes a Trajectory as one rollout-lens/v1 line object (token arrays stored once). */
export function writeRolloutLens(t: Trajectory): RolloutLensLine {
  const flat = flattenSegments(t.segments);
  return {
    format: ROLLOUT_LENS_V1,
    id: t.id,
    created_at: t.createdAt,
    status: t.status,
    end_reason: t.endReason,
    reward: t.reward,
    model: t.model,
    tokenizer: t.tokenizer,
    sampling_params: t.samplingParams,
    group: t.group,
    parent_id: t.lineage?.parentId,
    fork_index: t.lineage?.forkIndex,
    fork_edit: t.lineage?.editedToolResults
      ? { tool_results: [...t.lineage.editedToolResults] }
      : undefined,
    token_ids: flat.tokenIds,
    loss_mask: flat.lossMask,
    logprobs: flat.logprobs,
    segment_info: flat.segmentInfo.map(([isOutput, length]) => [isOutput, length]),
    segments: t.segments.map((s, i) => segmentToWire(s, flat.offsets[i])),
    logprob_placeholder: t.logprobPlaceholder,
    calls: t.calls?.map(callToWire),
    ...writeLanesWire(t),
    messages: t.messages?.map((m) => ({ ...m })),
    metadata: { ...t.metadata },
  };
}

function segmentToWire(
  s: Segment,
  offsets: { start: number; end: number } | undefined,
): SegmentWire {
  return {
    kind: s.kind,
    ...(s.untrained ? { untrained: true } : {}),
    turn: s.turn,
    start: offsets?.start ?? 0,
    end: offsets?.end ?? 0,
    text: s.text,
    finish_reason: s.finishReason,
    tool_calls: s.toolCalls?.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: { ...c.arguments },
      raw: c.raw,
      span: [c.span[0], c.span[1]],
      error: c.error,
      result: c.result,
      result_is_error: c.resultIsError,
    })),
    cutoff: s.cutoff,
    cutoff_reason: s.cutoffReason,
    edited: s.edited,
    top_logprobs: s.topLogprobs?.map(
      (alts) => alts?.map((a) => ({ token_id: a.tokenId, logprob: a.logprob })) ?? null,
    ),
    ...(s.keptTokenIds ? { kept_token_ids: s.keptTokenIds.map((k) => (k ? [...k] : null)) } : {}),
  };
}

export const rolloutLensAdapter: FormatAdapter = {
  id: ROLLOUT_LENS_V1,
  tokenFields: { tokenIds: "token_ids", lossMask: "loss_mask", logprobs: "logprobs" },
  detect: (value) => value.format === ROLLOUT_LENS_V1,
  read: readRolloutLens,
};

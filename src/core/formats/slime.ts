import { z } from "zod";
import { flattenSegments, type SegmentSpan } from "../trajectory/flatten";
import type { ProvenFacts } from "../trajectory/invariants";
import { lanesFromArrays } from "../trajectory/lanes";
import type { Trajectory, TrajectoryStatus } from "../trajectory/types";
import {
  fastLogprobs,
  fastMask01,
  fastTokenIds,
  provesMaskRuns,
  safeParseFast,
} from "./fastArrays";
import { readLanesWire, writeLanesWire } from "./lanesWire";
import { maskRuns, nulls, segmentsByKind } from "./maskSegments";
import type { FieldError, FormatAdapter, FormatId, ReadContext, ReadResult } from "./types";
import {
  lengthError,
  logprobsSchema,
  mask01Schema,
  remainder,
  tokenIdsSchema,
  zodFieldError,
} from "./wireSchemas";

/** The Sample fields we map; every other key stays verbatim in metadata. */
const sampleSchema = z.looseObject({
  tokens: tokenIdsSchema,
  response_length: z.int().nonnegative(),
  loss_mask: mask01Schema.nullish(),
  rollout_log_probs: logprobsSchema.nullish(),
  status: z.string().optional(),
});

const fastSampleSchema = sampleSchema.extend({
  tokens: fastTokenIds,
  loss_mask: fastMask01.nullish(),
  rollout_log_probs: fastLogprobs.nullish(),
});

const STATUS_FROM_SLIME: Readonly<Record<string, TrajectoryStatus>> = {
  pending: "running",
  completed: "completed",
  truncated: "truncated",
  aborted: "aborted",
};
const STATUS_TO_SLIME: Readonly<Record<TrajectoryStatus, string>> = {
  running: "pending",
  completed: "completed",
  truncated: "truncated",
  aborted: "aborted",
};

// Per-token arrays only shaped as arrays: provesMaskRuns then proves every entry in one pass.
const shapeOnlySampleSchema = sampleSchema.extend({
  tokens: z.custom<number[]>(Array.isArray),
  loss_mask: z.custom<(0 | 1)[]>(Array.isArray).nullish(),
  rollout_log_probs: z.custom<(number | null)[]>(Array.isArray).nullish(),
});

type Sample = z.infer<typeof sampleSchema>;

/** The schema checked `tokens`; segmentsByKind builds each mask from its segment's kind. */
const SLIME_PROVEN: ProvenFacts = { tokenIds: true, lossMask: true };
const ALL_PROVEN: ProvenFacts = { tokenIds: true, lossMask: true, modelLogprobs: true };

/**
 * True when some response token is a tool token (mask 0) and every one has logprob exactly 0.
 * `logprobs` is response-only: token k of the trajectory is entry k - promptLength.
 */
function isZeroOnTools(
  spans: readonly SegmentSpan[],
  logprobs: readonly (number | null)[],
  promptLength: number,
): boolean {
  let masked = 0;
  for (const span of spans) {
    if (span.kind !== "tool") continue;
    masked += span.end - span.start;
    for (let k = span.start - promptLength; k < span.end - promptLength; k++) {
      if (logprobs[k] !== 0) return false;
    }
  }
  return masked > 0;
}

/** The first length rule `s` breaks (response_length vs tokens, the response arrays vs it). */
function checkLengths(s: Sample, fieldPrefix: string): FieldError | undefined {
  const at = (name: string) => (fieldPrefix === "" ? name : `${fieldPrefix}.${name}`);
  const n = s.tokens.length;
  const r = s.response_length;
  if (r > n) return { field: at("response_length"), message: `${r} exceeds the ${n} tokens` };
  if (s.loss_mask && s.loss_mask.length !== r) {
    return lengthError(at("loss_mask"), s.loss_mask.length, "response_length", r);
  }
  if (s.rollout_log_probs && s.rollout_log_probs.length !== r) {
    return lengthError(at("rollout_log_probs"), s.rollout_log_probs.length, "response_length", r);
  }
  return undefined;
}

/** Segment spans (token space): the prompt, then runs of equal mask (no mask: one model run). */
function spansOf(s: Sample): SegmentSpan[] {
  const promptLength = s.tokens.length - s.response_length;
  const prompt: SegmentSpan[] =
    promptLength > 0 ? [{ kind: "prompt", start: 0, end: promptLength }] : [];
  // concat, not push(...runs): an alternating mask has a run per token, too many arguments for a call.
  if (s.loss_mask) return prompt.concat(maskRuns(s.loss_mask, promptLength));
  return s.response_length > 0
    ? [...prompt, { kind: "model", start: promptLength, end: s.tokens.length }]
    : prompt;
}

/**
 * Reads one slime `Sample.to_dict()` (docs/format.md). Response-only arrays are placed after
 * the prompt (prompt logprobs null); 0.0 placeholders at mask 0 become null and are remembered in
 * `logprobPlaceholder` so writing back to slime reproduces them.
 */
export function readSlimeSample(
  value: unknown,
  context: ReadContext,
  row = 0,
  fieldPrefix = "",
): ReadResult {
  // Fast path: a well-formed sample is proven, and cut into runs, in one fused pass. Anything odd
  // takes the exact path, so every verdict and error message is the one it always gave.
  const shaped = shapeOnlySampleSchema.safeParse(value);
  if (shaped.success && !checkLengths(shaped.data, fieldPrefix)) {
    const s = shaped.data;
    const arrays = { token_ids: s.tokens, loss_mask: s.loss_mask, logprobs: s.rollout_log_probs };
    const spans = provesMaskRuns(arrays, s.tokens.length - s.response_length);
    if (spans) return build(s, spans, context, row, fieldPrefix, ALL_PROVEN);
  }
  return readSlimeSampleExact(value, context, row, fieldPrefix);
}

/**
 * readSlimeSample without its fused fast path: the schema, then the length rules, in separate
 * passes. The reference the fast path must agree with (its tests compare the two).
 */
export function readSlimeSampleExact(
  value: unknown,
  context: ReadContext,
  row = 0,
  fieldPrefix = "",
): ReadResult {
  const parsed = safeParseFast(fastSampleSchema, sampleSchema, value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error, fieldPrefix) };
  const s = parsed.data;
  const problem = checkLengths(s, fieldPrefix);
  if (problem) return { ok: false, error: problem };
  return build(s, spansOf(s), context, row, fieldPrefix, SLIME_PROVEN);
}

/** Sub-runs of a mask-0 span: exactly 0.0 (a placeholder: tool) or sampled (< 0: model). */
function splitByLogprob(
  span: SegmentSpan,
  logprobs: readonly (number | null)[],
  promptLength: number,
): SegmentSpan[] {
  const out: SegmentSpan[] = [];
  const isSampled = (k: number) => {
    const v = logprobs[k - promptLength];
    return typeof v === "number" && v < 0;
  };
  let start = span.start;
  for (let k = span.start + 1; k <= span.end; k++) {
    if (k < span.end && isSampled(k) === isSampled(start)) continue;
    out.push(
      isSampled(start)
        ? { kind: "model", start, end: k, untrained: true }
        : { kind: "tool", start, end: k },
    );
    start = k;
  }
  return out;
}

/** True when some mask-0 run holds two or more 0.0 logprobs in a row (slime's placeholders). */
function hasPlaceholderRun(
  spans: readonly SegmentSpan[],
  logprobs: readonly (number | null)[],
  promptLength: number,
): boolean {
  for (const span of spans) {
    if (span.kind !== "tool") continue;
    let zeros = 0;
    for (let k = span.start - promptLength; k < span.end - promptLength; k++) {
      zeros = logprobs[k] === 0 ? zeros + 1 : 0;
      if (zeros >= 2) return true;
    }
  }
  return false;
}

/**
 * Mask-0 response tokens the model produced, told from tool tokens where the record says so:
 * when a sample writes slime's 0.0 placeholder on its tool tokens, mask-0 tokens with real
 * logprobs (< 0) were sampled by the model and then excluded from training (slime's drift
 * demotion, miles' shared completions): a model segment marked untrained, never a tool
 * segment. With no placeholder run, mask 0 stays a tool run (docs/format.md "Reading other formats").
 */
function modelSpansAtMaskZero(
  spans: readonly SegmentSpan[],
  logprobs: readonly (number | null)[] | null | undefined,
  promptLength: number,
): readonly SegmentSpan[] {
  if (!logprobs || !hasPlaceholderRun(spans, logprobs, promptLength)) return spans;
  return spans.flatMap((span) =>
    span.kind === "tool" ? splitByLogprob(span, logprobs, promptLength) : [span],
  );
}

function build(
  s: Sample,
  spans: readonly SegmentSpan[],
  context: ReadContext,
  row: number,
  fieldPrefix: string,
  proven: ProvenFacts,
): ReadResult {
  const promptLength = s.tokens.length - s.response_length;
  const lp = s.rollout_log_probs;
  spans = modelSpansAtMaskZero(spans, lp, promptLength);
  // slime's own helpers write 0.0 at mask 0; strands-via-slime copies real scores there instead.
  const isPlaceholder = !!lp && isZeroOnTools(spans, lp, promptLength);
  // Segments straight from the response arrays: no full-length intermediates, no per-token pushes.
  const segments = segmentsByKind(spans, s.tokens, (span) =>
    // Prompt logprobs are never stored; placeholders sit exactly on the mask-0 (tool) runs.
    !lp || span.kind === "prompt" || (isPlaceholder && span.kind === "tool")
      ? nulls(span.end - span.start)
      : lp.slice(span.start - promptLength, span.end - promptLength),
  );

  const consumed = new Set(["tokens", "response_length", "loss_mask", "rollout_log_probs"]);
  // teacher_log_probs (on-policy distillation: the teacher's logprob per response token) is the
  // `teacher` lane; a mis-shaped one stays in metadata as read.
  const teacher = lanesFromArrays({ [TEACHER_LANE]: s.teacher_log_probs }, s.tokens.length, {
    length: s.response_length,
    offset: promptLength,
  });
  if (teacher.logprobLanes) consumed.add("teacher_log_probs");
  const own = readLanesWire(s, s.tokens.length, fieldPrefix === "" ? "" : `${fieldPrefix}.`);
  if (!own.ok) return { ok: false, error: own.error };
  consumed.add("logprob_lanes").add("logprob_lane_info");
  const lanes = { ...teacher.logprobLanes, ...own.lanes };
  const status = s.status === undefined ? "completed" : STATUS_FROM_SLIME[s.status];
  if (s.status !== undefined && status !== undefined) consumed.add("status");
  const reward = s.reward;
  if (reward === null || typeof reward === "number") consumed.add("reward");
  const t: Trajectory = {
    id: row === 0 && fieldPrefix === "" ? `L${context.line}` : `L${context.line}.${row}`,
    source: { kind: "file", path: context.path, line: context.line, row },
    format: "slime",
    status: status ?? "aborted",
    reward: reward === null || typeof reward === "number" ? reward : undefined,
    segments,
    group: typeof s.group_index === "number" ? String(s.group_index) : undefined,
    logprobPlaceholder: isPlaceholder ? 0 : undefined,
    logprobLanes: Object.keys(lanes).length > 0 ? lanes : undefined,
    logprobLaneInfo: own.info,
    metadata: remainder(s, consumed),
  };
  return { ok: true, trajectories: [t], proven };
}

/** Reads a slime Sample line, or a `{rollout_id, samples}` dump wrapper (one trajectory per sample). */
export function readSlime(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const samples = value.samples;
  if (!Array.isArray(samples)) return readSlimeSample(value, context);
  const trajectories: Trajectory[] = [];
  // A fact holds for the dump only when every sample's read proved it.
  let isAllProven = true;
  for (const [i, sample] of samples.entries()) {
    const result = readSlimeSample(sample, context, i, `samples[${i}]`);
    if (!result.ok) return result;
    if (!result.proven?.modelLogprobs) isAllProven = false;
    for (const t of result.trajectories) {
      trajectories.push({
        ...t,
        metadata: { ...t.metadata, slime_dump: { rollout_id: value.rollout_id } },
      });
    }
  }
  return { ok: true, trajectories, proven: isAllProven ? ALL_PROVEN : SLIME_PROVEN };
}

/** The lane slime's `teacher_log_probs` maps to. */
export const TEACHER_LANE = "teacher";

/** Writes a Trajectory as a slime Sample object: response-only arrays after the first prompt segment. */
export function writeSlime(t: Trajectory): Record<string, unknown> {
  const flat = flattenSegments(t.segments);
  const first = t.segments[0];
  const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
  const lossMask = flat.lossMask.slice(promptLength);
  const logprobs = flat.logprobs.slice(promptLength);
  const placeholder = t.logprobPlaceholder;
  const hasLogprobs = placeholder !== undefined || logprobs.some((v) => v !== null);
  const { slime_dump: _dump, ...metadata } = t.metadata;
  const out: Record<string, unknown> = {
    ...metadata,
    tokens: flat.tokenIds,
    response_length: flat.tokenIds.length - promptLength,
    loss_mask: lossMask,
    rollout_log_probs: hasLogprobs
      ? logprobs.map((v, k) =>
          v === null && lossMask[k] === 0 && placeholder !== undefined ? placeholder : v,
        )
      : null,
  };
  // The teacher lane goes back to teacher_log_probs when it has nothing on the prompt.
  const teacher = t.logprobLanes?.[TEACHER_LANE];
  const isTeacherNative = !!teacher && teacher.slice(0, promptLength).every((v) => v === null);
  if (teacher && isTeacherNative) out.teacher_log_probs = teacher.slice(promptLength);
  Object.assign(out, writeLanesWire(t, isTeacherNative ? [TEACHER_LANE] : []));
  // Keys the reader could not map losslessly (a reward dict, a `failed` status) stay as read.
  if (!("status" in metadata)) out.status = STATUS_TO_SLIME[t.status];
  if (!("reward" in metadata) && t.reward !== undefined) out.reward = t.reward;
  return out;
}

export const slimeAdapter: FormatAdapter = {
  id: "slime",
  tokenFields: {
    tokenIds: "tokens",
    lossMask: "loss_mask",
    logprobs: "rollout_log_probs",
    rowsIn: "samples",
  },
  detect: (v) =>
    (Array.isArray(v.tokens) && "response_length" in v) ||
    ("rollout_id" in v && Array.isArray(v.samples)),
  read: readSlime,
};

/** The slime reader under the id of a producer whose rows were turned into slime Samples. */
function convertedAdapter(id: FormatId, marker: string): FormatAdapter {
  return {
    ...slimeAdapter,
    id,
    detect: (v) => marker in v && slimeAdapter.detect(v),
    read: (value, context) => {
      const result = readSlime(value, context);
      if (!result.ok) return result;
      return { ...result, trajectories: result.trajectories.map((t) => ({ ...t, format: id })) };
    },
  };
}

/** A row of SkyRL's training batch dump (`dumped_data/*.pkl`). */
export const skyrlBatchAdapter = convertedAdapter("skyrl-batch", "skyrl_batch");

/** A row of prime-rl's older rollout table (Parquet `input_tokens`, `output_tokens`, ...). */
export const primeRlRolloutsAdapter = convertedAdapter("prime-rl-rollouts", "prime_rl_rollouts");

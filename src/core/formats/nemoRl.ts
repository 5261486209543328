import { flattenSegments, type SegmentSpan } from "../trajectory/flatten";
import type { Trajectory } from "../trajectory/types";
import { isLogprobArray, isTokenIdArray } from "./fastArrays";
import { readLanesWire, writeLanesWire } from "./lanesWire";
import { maskRuns, nulls, segmentsByKind } from "./maskSegments";
import type { FieldError, FormatAdapter, ReadContext, ReadResult } from "./types";
import { lengthError, remainder } from "./wireSchemas";

/*
 * NeMo-RL's GRPO training dump, `train_data_step{N}.jsonl` (docs/format.md "NeMo-RL"): one line
 * per training sample, written by `Logger.log_batched_dict_as_jsonl` from a micro-batch of one, so
 * every value is a batch of one (`token_ids: [[...]]`, `rewards: [1.0]`), tensors right-padded to
 * the batch's longest sample (`input_lengths: [n]` says how many tokens are real). Flat values are
 * read too. `prev_logprobs` (the trainer's logprobs) is the `trainer` lane; every other per-token
 * numeric array (`advantages`, ...) is kept in metadata cut to the real tokens and unbatched, so it
 * is offered as a lane by name (`laneNames`), and written back batched and padded as read.
 */

/** Metadata key holding what the writer needs to reproduce the line's layout. */
export const NEMO_RL_META = "nemo_rl";

/** Per-token keys of the dump that are kept as extra lanes in metadata (see tokenLanes.ts). */
export const NEMO_RL_LANE_KEYS = ["advantages"] as const;

/** The lane NeMo-RL's `prev_logprobs` (the trainer's logprobs of the same tokens) is read into. */
export const NEMO_RL_TRAINER_LANE = "trainer";

interface Layout {
  /** True when values were written as batches of one (the dump as NeMo-RL writes it). */
  readonly batched: boolean;
  /** True when the loss mask was written as booleans. */
  readonly boolMask?: boolean;
  /** Padding after the real tokens, per mapped key, written back as read. */
  readonly padding?: {
    readonly token_ids: readonly number[];
    readonly token_loss_mask: readonly unknown[];
    readonly generation_logprobs?: readonly (number | null)[];
  };
  /**
   * Per-token keys unbatched and cut to the real tokens on reading (the `trainer` lane's
   * `prev_logprobs` among them), with the padding each had after them: restored on writing.
   */
  readonly tokenKeys?: Readonly<Record<string, readonly (number | null)[]>>;
  /** True when `prev_logprobs` held 0.0 on every untrained token (null in the lane). */
  readonly trainerZeroOffMask?: boolean;
}

function unbatch(value: unknown): { value: unknown; batched: boolean } {
  if (Array.isArray(value) && value.length === 1 && Array.isArray(value[0])) {
    return { value: value[0], batched: true };
  }
  return { value, batched: false };
}

function scalar(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

/** Reads the 0/1 (or boolean) loss mask; undefined when some entry is neither. */
function mask01(value: unknown): { mask: (0 | 1)[]; isBool: boolean; bad?: number } | undefined {
  if (!Array.isArray(value)) return undefined;
  const mask: (0 | 1)[] = new Array(value.length);
  let isBool = false;
  for (let k = 0; k < value.length; k++) {
    const v: unknown = value[k];
    if (v === 1 || v === true) mask[k] = 1;
    else if (v === 0 || v === false) mask[k] = 0;
    else return { mask, isBool, bad: k };
    if (typeof v === "boolean") isBool = true;
  }
  return { mask, isBool };
}

/** True when every `logprobs[k]` with `mask[k] === 0` (k < n) is exactly 0 and one exists. */
function isZeroOffMask(
  logprobs: readonly (number | null)[],
  mask: readonly (0 | 1)[],
  n: number,
): boolean {
  let seen = false;
  for (let k = 0; k < n; k++) {
    if (mask[k] !== 0) continue;
    if (logprobs[k] !== 0) return false;
    seen = true;
  }
  return seen;
}

/**
 * The per-token numeric arrays of a line besides the mapped ones, in its layout (batched like
 * `token_ids`, `full` long), split into the real tokens and the padding after them.
 */
function perTokenArrays(
  value: Readonly<Record<string, unknown>>,
  consumed: ReadonlySet<string>,
  batched: boolean,
  full: number,
  n: number,
): Map<string, { real: (number | null)[]; padding: (number | null)[] }> {
  const out = new Map<string, { real: (number | null)[]; padding: (number | null)[] }>();
  if (full === 0) return out;
  for (const [key, raw] of Object.entries(value)) {
    if (consumed.has(key)) continue;
    const u = unbatch(raw);
    if (u.batched !== batched || !isLogprobArray(u.value) || u.value.length !== full) continue;
    const values = u.value as (number | null)[];
    out.set(key, { real: values.slice(0, n), padding: values.slice(n) });
  }
  return out;
}

/**
 * The line's per-token arrays besides the mapped ones: `prev_logprobs` as the `trainer` lane (0.0
 * off the mask read as null, as for generation_logprobs), the others as metadata cut to the real
 * tokens; `tokenKeys` keeps each one's padding for the writer. Adds `prev_logprobs` to `consumed`.
 */
function readTokenKeys(
  value: Readonly<Record<string, unknown>>,
  consumed: Set<string>,
  batched: boolean,
  full: number,
  realMask: readonly (0 | 1)[],
): Pick<Layout, "tokenKeys" | "trainerZeroOffMask"> & {
  lanes?: Record<string, (number | null)[]>;
  metadata: Record<string, unknown>;
} {
  const n = realMask.length;
  const perToken = perTokenArrays(value, consumed, batched, full, n);
  const tokenKeys: Record<string, (number | null)[]> = {};
  const metadata: Record<string, unknown> = {};
  for (const [key, { real, padding }] of perToken) {
    tokenKeys[key] = padding;
    if (key !== "prev_logprobs") metadata[key] = real;
  }
  const prev = perToken.get("prev_logprobs")?.real;
  if (!prev) return { tokenKeys: perToken.size > 0 ? tokenKeys : undefined, metadata };
  consumed.add("prev_logprobs");
  const zero = isZeroOffMask(prev, realMask, n);
  const trainer = zero ? prev.map((v, k) => (realMask[k] === 0 ? null : v)) : prev;
  return {
    tokenKeys,
    trainerZeroOffMask: zero ? true : undefined,
    lanes: { [NEMO_RL_TRAINER_LANE]: trainer },
    metadata,
  };
}

/**
 * Reads one NeMo-RL train_data line. Segments: the untrained tokens before the first trained one
 * are the prompt, then runs of trained (model) and untrained (tool/env) tokens. NeMo-RL stores
 * 0.0 as the generation logprob of untrained tokens; those read as null and are remembered in
 * `logprobPlaceholder`, as for slime.
 */
export function readNemoRl(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const fail = (field: string, message: string): ReadResult => ({
    ok: false,
    error: { field, message },
  });
  const ids = unbatch(value.token_ids);
  if (!isTokenIdArray(ids.value)) {
    return fail(
      "token_ids",
      "expected an array (or a batch of one array) of non-negative integers",
    );
  }
  const tokenIds: number[] = ids.value;
  const maskRaw = unbatch(value.token_loss_mask);
  const mask = mask01(maskRaw.value);
  if (!mask) return fail("token_loss_mask", "expected an array (or a batch of one array) of 0/1");
  if (mask.bad !== undefined) {
    return fail(`token_loss_mask[${mask.bad}]`, "mask must be 0 or 1");
  }
  const lpRaw = unbatch(value.generation_logprobs);
  if (value.generation_logprobs !== undefined && !isLogprobArray(lpRaw.value)) {
    return fail("generation_logprobs", "expected an array (or a batch of one array) of numbers");
  }
  const logprobs =
    value.generation_logprobs === undefined ? undefined : (lpRaw.value as (number | null)[]);
  const full = tokenIds.length;
  const lengthProblem: FieldError | undefined =
    mask.mask.length !== full
      ? lengthError("token_loss_mask", mask.mask.length, "token_ids", full)
      : logprobs && logprobs.length !== full
        ? lengthError("generation_logprobs", logprobs.length, "token_ids", full)
        : undefined;
  if (lengthProblem) return { ok: false, error: lengthProblem };
  const inputLength = scalar(value.input_lengths);
  if (
    inputLength !== undefined &&
    (!Number.isInteger(inputLength) || (inputLength as number) < 0)
  ) {
    return fail("input_lengths", "expected a non-negative integer (or a batch of one)");
  }
  const n = inputLength === undefined ? full : (inputLength as number);
  if (n > full) return fail("input_lengths", `${n} exceeds the ${full} token_ids`);

  const realMask = mask.mask.slice(0, n);
  let prompt = 0;
  while (prompt < n && realMask[prompt] === 0) prompt++;
  const spans: SegmentSpan[] = prompt > 0 ? [{ kind: "prompt", start: 0, end: prompt }] : [];
  const all = spans.concat(maskRuns(realMask.slice(prompt), prompt));
  const isPlaceholder = !!logprobs && isZeroOffMask(logprobs, realMask, n);
  const segments = segmentsByKind(all, tokenIds, (span) =>
    !logprobs || (isPlaceholder && span.kind !== "model")
      ? nulls(span.end - span.start)
      : logprobs.slice(span.start, span.end),
  );

  const consumed = new Set([
    "token_ids",
    "token_loss_mask",
    "generation_logprobs",
    "logprob_lanes",
    "logprob_lane_info",
  ]);
  const own = readLanesWire(value, n);
  if (!own.ok) return { ok: false, error: own.error };
  const extra = readTokenKeys(value, consumed, ids.batched, full, realMask);
  const lanes = { ...extra.lanes, ...own.lanes };
  const layout: Layout = {
    batched: ids.batched,
    boolMask: mask.isBool ? true : undefined,
    padding:
      n < full
        ? {
            token_ids: tokenIds.slice(n),
            token_loss_mask: (maskRaw.value as unknown[]).slice(n),
            generation_logprobs: logprobs?.slice(n),
          }
        : undefined,
    tokenKeys: extra.tokenKeys,
    trainerZeroOffMask: extra.trainerZeroOffMask,
  };
  const reward = scalar(value.rewards);
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "nemo-rl",
    status: "completed",
    reward: typeof reward === "number" ? reward : undefined,
    segments,
    logprobPlaceholder: isPlaceholder ? 0 : undefined,
    logprobLanes: Object.keys(lanes).length > 0 ? lanes : undefined,
    logprobLaneInfo: own.info,
    metadata: { ...remainder(value, consumed), ...extra.metadata, [NEMO_RL_META]: layout },
  };

  // segmentsByKind builds every mask from its segment's kind; token ids were checked above.
  return { ok: true, trajectories: [t], proven: { tokenIds: true, lossMask: true } };
}

/** Writes a trajectory as a NeMo-RL train_data line (the layout it was read with, or batched). */
export function writeNemoRl(t: Trajectory): Record<string, unknown> {
  const { [NEMO_RL_META]: rawLayout, ...metadata } = t.metadata;
  const layout = (
    typeof rawLayout === "object" && rawLayout !== null ? rawLayout : { batched: true }
  ) as Layout;
  const flat = flattenSegments(t.segments);
  const placeholder = t.logprobPlaceholder ?? 0;
  const pad = layout.padding;
  const tokenIds = flat.tokenIds.concat(pad?.token_ids ?? []);
  const maskValues: unknown[] = layout.boolMask
    ? flat.lossMask.map((m) => m === 1)
    : flat.lossMask.slice();
  const mask = maskValues.concat(pad?.token_loss_mask ?? []);
  const logprobs = flat.logprobs
    .map((v) => v ?? placeholder)
    .concat((pad?.generation_logprobs ?? []) as number[]);
  const wrap = (v: unknown) => (layout.batched ? [v] : v);
  const out: Record<string, unknown> = { ...metadata };
  // Per-token keys were unbatched and cut to the real tokens on reading: padded and batched back.
  for (const [key, padding] of Object.entries(layout.tokenKeys ?? {})) {
    const real =
      key === "prev_logprobs"
        ? t.logprobLanes?.[NEMO_RL_TRAINER_LANE]?.map((v) =>
            v === null && layout.trainerZeroOffMask ? 0 : v,
          )
        : metadata[key];
    if (Array.isArray(real)) out[key] = wrap(real.concat(padding));
  }
  Object.assign(out, { token_ids: wrap(tokenIds), token_loss_mask: wrap(mask) });
  const hasLogprobs = t.logprobPlaceholder !== undefined || flat.logprobs.some((v) => v !== null);
  if (hasLogprobs) out.generation_logprobs = wrap(logprobs);
  if (!("rewards" in metadata) && t.reward !== undefined) out.rewards = wrap(t.reward);
  if (!("input_lengths" in metadata)) out.input_lengths = wrap(flat.tokenIds.length);
  const nativeTrainer = layout.tokenKeys && "prev_logprobs" in layout.tokenKeys;
  Object.assign(out, writeLanesWire(t, nativeTrainer ? [NEMO_RL_TRAINER_LANE] : []));
  return out;
}

export const nemoRlAdapter: FormatAdapter = {
  id: "nemo-rl",
  tokenFields: {
    tokenIds: "token_ids",
    lossMask: "token_loss_mask",
    logprobs: "generation_logprobs",
  },
  detect: (v) => "token_ids" in v && "token_loss_mask" in v,
  read: readNemoRl,
};

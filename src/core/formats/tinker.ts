import { z } from "zod";
import type { Segment, Trajectory, TrajectoryStatus } from "../trajectory/types";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";
import {
  anyNumber,
  lengthError,
  logprobsSchema,
  remainder,
  tokenIdsSchema,
  zodFieldError,
} from "./wireSchemas";

/*
 * Tinker cookbook (thinking-machines-lab/tinker-cookbook; docs/format.md "Tinker cookbook"):
 * - `capture/sample.jsonl`: one record per SDK sampling call (`capture/instrument.py`,
 *   `_sample_request_metadata` + `_sample_outcome`, appended by `capture/exporter.py`
 *   JsonlFileSink): `kind: "sample"`, `scope` (the ambient `capture(...)` keys: `iteration`,
 *   `group_idx`, `traj_idx`, `split`, ...), `prompt_tokens`, `samples: [{tokens, logprobs,
 *   stop_reason}]` (one per `num_samples`), `status` (`ok`, `error`, `cancelled`, `submitted`),
 *   `sampling_params`, `base_model` / `model_path`, `seq_id`. Each sample is one trajectory:
 *   the prompt (mask 0) then the sampled tokens (mask 1) with their logprobs; its step is the
 *   scope's `iteration` (`metadata.step`).
 * - `iteration_{N:06d}/{train|eval_<name>}_rollout_summaries.jsonl` (`rl/rollout_logging.py`
 *   `serialize_rollout_summaries`, written by `TrainingRunStore.write_rollouts`): one record per
 *   trajectory with rewards, per-transition lengths and metrics, no tokens or text.
 */

const CAPTURE_STATUS: Readonly<Record<string, TrajectoryStatus>> = {
  ok: "completed",
  error: "aborted",
  cancelled: "aborted",
  submitted: "aborted",
};

const captureSchema = z.looseObject({
  kind: z.literal("sample"),
  scope: z.record(z.string(), z.unknown()),
  prompt_tokens: tokenIdsSchema.optional(),
  prompt_length: z.int().nonnegative().nullable().optional(),
  samples: z
    .array(
      z.looseObject({
        tokens: tokenIdsSchema,
        logprobs: logprobsSchema.nullable(),
        stop_reason: z.string().nullable().optional(),
      }),
    )
    .optional(),
  status: z.enum(["ok", "error", "cancelled", "submitted"]),
  error: z.string().optional(),
  base_model: z.string().optional(),
  model_path: z.string().optional(),
  sampling_params: z.record(z.string(), z.unknown()).optional(),
  // A 62-bit random id: JSON numbers past 2^53 lose digits, so it is kept, never matched on.
  seq_id: anyNumber.optional(),
  created_at: anyNumber.optional(),
});
type Capture = z.infer<typeof captureSchema>;
type CaptureSample = NonNullable<Capture["samples"]>[number];

const CONSUMED = new Set(["prompt_tokens", "samples"]);

const int = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : undefined);

/**
 * `it3.g2.t1.L7`: the scope's coordinates (what a researcher calls the rollout) and the line (one
 * rollout samples once per turn, each call its own line).
 */
function captureId(scope: Capture["scope"], line: number): string {
  const parts = [
    ["it", int(scope.iteration)],
    ["g", int(scope.group_idx)],
    ["t", int(scope.traj_idx)],
  ].flatMap(([name, n]) => (n === undefined ? [] : [`${name}${n}`]));
  return [...parts, `L${line}`].join(".");
}

/** Why a call ended without samples, in words. */
function endReasonOf(c: Capture): string | undefined {
  if (c.status === "error") return `the sampling call failed: ${c.error ?? "no error recorded"}`;
  if (c.status === "cancelled") return "the sampling call was cancelled";
  if (c.status === "submitted") return "the call was submitted; capture recorded no outcome";
  return undefined;
}

function modelSegment(sample: CaptureSample, at: string): Segment | string {
  const n = sample.tokens.length;
  const logprobs = sample.logprobs ?? new Array<null>(n).fill(null);
  if (logprobs.length !== n)
    return lengthError(`${at}.logprobs`, logprobs.length, `${at}.tokens`, n).message;
  const stop = sample.stop_reason;
  return {
    kind: "model",
    turn: 1,
    tokenIds: sample.tokens,
    lossMask: new Array<1>(n).fill(1),
    logprobs,
    ...(stop === "length" || stop === "stop" ? { finishReason: { type: stop } } : {}),
  };
}

function readCapture(value: Readonly<Record<string, unknown>>, context: ReadContext): ReadResult {
  const parsed = captureSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const c = parsed.data;
  if (c.prompt_tokens === undefined) {
    const message = `no prompt_tokens (the prompt had no to_ints(); prompt_length ${c.prompt_length ?? "unknown"}): the trajectory's ids cannot be rebuilt`;
    return { ok: false, error: { field: "prompt_tokens", message } };
  }
  const prompt: Segment = {
    kind: "prompt",
    turn: 0,
    tokenIds: c.prompt_tokens,
    lossMask: new Array<0>(c.prompt_tokens.length).fill(0),
    logprobs: new Array<null>(c.prompt_tokens.length).fill(null),
  };
  const samples = c.samples ?? [];
  const step = int(c.scope.iteration);
  const metadata = {
    ...remainder(value, CONSUMED),
    ...(step === undefined ? {} : { step }),
    ...(typeof c.scope.split === "string" ? { split: c.scope.split } : {}),
  };
  const base = {
    source: { kind: "file" as const, path: context.path, line: context.line },
    format: "tinker-capture",
    ...(c.base_model ? { model: c.base_model } : {}),
    ...(c.sampling_params ? { samplingParams: c.sampling_params } : {}),
    ...(c.created_at === undefined
      ? {}
      : { createdAt: new Date(c.created_at * 1000).toISOString() }),
    metadata,
  };
  const id = captureId(c.scope, context.line);
  const group = samples.length > 1 ? `call L${context.line}` : groupOf(c.scope);
  const grouped = group === undefined ? {} : { group };
  const endReason = endReasonOf(c);
  if (samples.length === 0) {
    const t: Trajectory = {
      ...base,
      ...grouped,
      id,
      source: { ...base.source, row: 0 },
      status: CAPTURE_STATUS[c.status] ?? "aborted",
      segments: [prompt],
      ...(endReason ? { endReason } : {}),
    };
    return { ok: true, trajectories: [t] };
  }
  const trajectories: Trajectory[] = [];
  for (const [k, sample] of samples.entries()) {
    const model = modelSegment(sample, `samples[${k}]`);
    if (typeof model === "string")
      return { ok: false, error: { field: `samples[${k}].logprobs`, message: model } };
    const truncated = model.finishReason?.type === "length";
    trajectories.push({
      ...base,
      ...grouped,
      id: samples.length > 1 ? `${id}.s${k}` : id,
      source: { ...base.source, row: k },
      status: truncated ? "truncated" : "completed",
      segments: [prompt, model],
    });
  }
  return { ok: true, trajectories };
}

/** The GRPO group of a one-sample call: the scope's iteration and group index, when given. */
function groupOf(scope: Capture["scope"]): string | undefined {
  const g = int(scope.group_idx);
  if (g === undefined) return undefined;
  const it = int(scope.iteration);
  return it === undefined ? `g${g}` : `it${it}.g${g}`;
}

const summarySchema = z.looseObject({
  schema_version: z.literal(1),
  split: z.string(),
  iteration: z.int(),
  group_idx: z.int(),
  traj_idx: z.int(),
  total_reward: anyNumber.nullable(),
  steps: z.array(z.record(z.string(), z.unknown())),
});

function readSummary(value: Readonly<Record<string, unknown>>, context: ReadContext): ReadResult {
  const parsed = summarySchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const s = parsed.data;
  const t: Trajectory = {
    id: `it${s.iteration}.g${s.group_idx}.t${s.traj_idx}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "tinker-summary",
    status: "completed",
    reward: s.total_reward,
    group: `it${s.iteration}.g${s.group_idx}`,
    segments: [],
    metadata: { ...remainder(value, new Set(["total_reward"])), step: s.iteration },
  };
  return { ok: true, trajectories: [t] };
}

export const tinkerCaptureAdapter: FormatAdapter = {
  id: "tinker-capture",
  detect: (v) => v.kind === "sample" && typeof v.scope === "object" && v.scope !== null,
  read: readCapture,
};

export const tinkerSummaryAdapter: FormatAdapter = {
  id: "tinker-summary",
  detect: (v) =>
    v.schema_version === 1 &&
    "iteration" in v &&
    "traj_idx" in v &&
    "total_reward" in v &&
    Array.isArray(v.steps),
  read: readSummary,
};

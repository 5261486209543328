import { z } from "zod";
import type { FinishReason, GenerateCall } from "../trajectory/types";
import type { FieldError } from "./types";

/** Any JS number, NaN and ±Infinity included: Python writes them and they must load. */
export const anyNumber = z.custom<number>((v) => typeof v === "number", "expected a number");

export const tokenIdsSchema = z.array(z.int().nonnegative());
export const mask01Schema = z.array(z.literal([0, 1], { error: "mask must be 0 or 1" }));
export const logprobsSchema = z.array(anyNumber.nullable());

/** SGLang `meta_info.finish_reason`; unknown extra keys are dropped. */
export const finishReasonSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("stop"), matched: z.union([z.number(), z.string()]).nullish() }),
  z.object({ type: z.literal("length"), length: z.number().optional() }),
  z.object({ type: z.literal("abort"), message: z.string().optional() }),
]);

/** One `/generate` call as stored in rollout-lens/v1 and strands-tito/v1 lines (snake_case). */
export const callSchema = z.object({
  rid: z.string(),
  input_len: z.int().nonnegative(),
  output_len: z.int().nonnegative(),
  finish_reason: finishReasonSchema.nullable(),
  cached_tokens: z.int().nonnegative().optional(),
  e2e_latency: anyNumber.optional(),
  weight_version: z.string().optional(),
  upstream: z.string().optional(),
  /** The failed attempts before this one (docs/format.md, calls). */
  retries: z
    .array(
      z.object({
        rid: z.string(),
        upstream: z.string().optional(),
        error: z.string(),
        backoff_ms: anyNumber,
      }),
    )
    .optional(),
});
export type CallWire = z.infer<typeof callSchema>;

function finishReason(wire: z.infer<typeof finishReasonSchema>): FinishReason {
  return wire.type === "stop" ? { type: "stop", matched: wire.matched } : wire;
}

/** Wire call (snake_case) -> GenerateCall. */
export function callFromWire(wire: CallWire): GenerateCall {
  return {
    rid: wire.rid,
    inputLen: wire.input_len,
    outputLen: wire.output_len,
    finishReason: wire.finish_reason ? finishReason(wire.finish_reason) : null,
    cachedTokens: wire.cached_tokens,
    e2eLatency: wire.e2e_latency,
    weightVersion: wire.weight_version,
    upstream: wire.upstream,
    ...(wire.retries === undefined
      ? {}
      : {
          retries: wire.retries.map((r) => ({
            rid: r.rid,
            upstream: r.upstream,
            error: r.error,
            backoffMs: r.backoff_ms,
          })),
        }),
  };
}

/** GenerateCall -> wire call (snake_case). */
export function callToWire(call: GenerateCall): CallWire {
  return {
    rid: call.rid,
    input_len: call.inputLen,
    output_len: call.outputLen,
    finish_reason: call.finishReason,
    cached_tokens: call.cachedTokens,
    e2e_latency: call.e2eLatency,
    weight_version: call.weightVersion,
    upstream: call.upstream,
    ...(call.retries === undefined
      ? {}
      : {
          retries: call.retries.map((r) => ({
            rid: r.rid,
            upstream: r.upstream,
            error: r.error,
            backoff_ms: r.backoffMs,
          })),
        }),
  };
}

/** JSON path of a zod issue path, e.g. `["masks", 1, 13]` -> `masks[1][13]`. */
export function fieldPath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out.length === 0 ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The first zod issue as a FieldError naming the JSON path. */
export function zodFieldError(error: z.ZodError, prefix = ""): FieldError {
  const issue = error.issues[0];
  if (!issue) return { message: "invalid record" };
  const field = fieldPath(issue.path, prefix);
  return field.length > 0 ? { field, message: issue.message } : { message: issue.message };
}

/** Length mismatch between two per-token arrays, as a FieldError on `field`. */
export function lengthError(
  field: string,
  length: number,
  other: string,
  otherLength: number,
): FieldError {
  return { field, message: `${field} has ${length} entries but ${other} has ${otherLength}` };
}

/** Keys of `value` not in `consumed`: the verbatim remainder kept in Trajectory.metadata. */
export function remainder(
  value: Readonly<Record<string, unknown>>,
  consumed: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!consumed.has(k)) out[k] = v;
  return out;
}

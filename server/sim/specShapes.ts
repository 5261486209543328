import { z } from "zod";

/** Spec §2.3 tuple `[logprob|null, token_id, text|null]`. */
export const logprobTupleSchema = z.tuple([
  z.number().max(0).nullable(),
  z.number().int(),
  z.string().nullable(),
]);

/** Spec §2.2 finish reasons. */
export const finishReasonSchema = z.union([
  z.strictObject({ type: z.literal("stop"), matched: z.union([z.number().int(), z.string()]) }),
  z.strictObject({ type: z.literal("length"), length: z.number().int() }),
  z.object({ type: z.literal("abort"), message: z.string().nullable() }),
]);

/** Spec §2.1 `meta_info` (unknown keys allowed, as the spec tells clients to tolerate them). */
export const metaInfoSchema = z.looseObject({
  id: z.string(),
  finish_reason: finishReasonSchema.nullable(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  weight_version: z.string(),
  total_retractions: z.number().int(),
  e2e_latency: z.number().optional(),
  input_token_logprobs: z.array(logprobTupleSchema).optional(),
  output_token_logprobs: z.array(logprobTupleSchema).optional(),
  input_top_logprobs: z.array(z.array(logprobTupleSchema).nullable()).optional(),
  output_top_logprobs: z.array(z.array(logprobTupleSchema)).optional(),
});

/** Spec §2 non-streaming single response. */
export const generateResponseSchema = z.strictObject({
  text: z.string(),
  output_ids: z.array(z.number().int()),
  meta_info: metaInfoSchema,
});

export type GenerateResponse = z.infer<typeof generateResponseSchema>;

/** Spec §5 "Abort before prefill" body. */
export const abortBeforePrefillSchema = z.strictObject({
  text: z.literal(""),
  meta_info: z.strictObject({
    id: z.string(),
    finish_reason: z.strictObject({
      type: z.literal("abort"),
      message: z.literal("Abort before prefill"),
    }),
    prompt_tokens: z.literal(0),
    completion_tokens: z.literal(0),
  }),
});

/** Spec §5 ErrorResponse (schema 400s, 503, 500). */
export const errorResponseSchema = z.strictObject({
  object: z.literal("error"),
  message: z.string(),
  type: z.string(),
  param: z.null(),
  code: z.number().int(),
});

/** Spec §5 semantic 400. */
export const semanticErrorSchema = z.strictObject({
  error: z.strictObject({ message: z.string() }),
});

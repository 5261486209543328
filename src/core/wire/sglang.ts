/**
 * Wire shapes of SGLang's native HTTP API (docs/sglang.md), as zod
 * schemas. Objects are loose: SGLang adds keys between versions and the spec says to treat unknown
 * keys as opaque, so they pass through untouched. Token ids are vocabulary ids; logprobs are natural
 * logs.
 */
import { z } from "zod";

const tokenId = z.number().int().nonnegative();

/** True for a vocabulary id: a non-negative integer. */
export function isTokenId(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** A list of token ids (one per generated token: hot path, checked with a plain loop). */
export const tokenIdListSchema = z.custom<number[]>((v) => Array.isArray(v) && v.every(isTokenId), {
  error: (issue) =>
    `expected a list of token ids (non-negative integers)${badElement(issue.input, isTokenId)}`,
});

/** ", element i is X" for the first element failing `isGood`, so errors point at the position. */
function badElement(input: unknown, isGood: (v: unknown) => boolean): string {
  if (!Array.isArray(input)) return `, got ${typeof input}`;
  const i = input.findIndex((v) => !isGood(v));
  return i < 0 ? "" : `, element ${i} is ${JSON.stringify(input[i])}`;
}

/** `[logprob, token_id, text|null]`; logprob is null for the first input position (docs/sglang.md). */
export type LogprobTuple = readonly [number | null, number, ...unknown[]];

/** True for one `[logprob|null, token_id, ...]` tuple. */
export function isLogprobTuple(value: unknown): value is LogprobTuple {
  if (!Array.isArray(value) || value.length < 2) return false;
  const [lp, id] = value;
  return (lp === null || typeof lp === "number") && isTokenId(id);
}

// Hand-written predicates rather than z.tuple: these arrays hold one tuple per token, and the tuple
// schema measured ~20 µs per 16-token reply, a third of a loopback round trip.
/** A list of logprob tuples, one per position. */
export const logprobListSchema = z.custom<LogprobTuple[]>(
  (v) => Array.isArray(v) && v.every(isLogprobTuple),
  {
    error: (issue) =>
      `expected a list of [logprob|null, token_id, text|null] tuples${badElement(issue.input, isLogprobTuple)}`,
  },
);

/** Top-k per position: a list of tuples, or null where none was computed (input position 0). */
export const topLogprobsSchema = z.custom<(LogprobTuple[] | null)[]>(
  (v) =>
    Array.isArray(v) &&
    v.every((pos) => pos === null || (Array.isArray(pos) && pos.every(isLogprobTuple))),
  "expected a list of top-k lists of [logprob|null, token_id, text|null] tuples (or null)",
);

/** `finish_reason` (docs/sglang.md). `matched` is a token id, a stop string, or (some versions) a list. */
export const finishReasonWireSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("stop"),
    matched: z.union([tokenId, z.string(), z.array(tokenId), z.null()]).optional(),
  }),
  z.looseObject({ type: z.literal("length"), length: z.number().int().optional() }),
  z.looseObject({
    type: z.literal("abort"),
    message: z.string().nullish(),
    status_code: z.number().int().nullish(),
    err_type: z.string().nullish(),
  }),
]);
export type FinishReasonWire = z.infer<typeof finishReasonWireSchema>;

/** `meta_info` of a /generate reply (docs/sglang.md); only the keys the client reads are typed. */
export const metaInfoSchema = z.looseObject({
  id: z.string(),
  finish_reason: finishReasonWireSchema.nullish(),
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  cached_tokens: z.number().int().nonnegative().optional(),
  e2e_latency: z.number().optional(),
  weight_version: z.string().optional(),
  input_token_logprobs: logprobListSchema.optional(),
  output_token_logprobs: logprobListSchema.optional(),
  input_top_logprobs: topLogprobsSchema.optional(),
  output_top_logprobs: topLogprobsSchema.optional(),
  /**
   * slime's patched SGLang (top-p renormalisation, docs/sglang.md "Kept sets"): the ids kept by the
   * sampler for each output token, flat, cut by the offsets (one more than tokens, from 0). Stock
   * SGLang sends neither.
   */
  top_p_kept_token_ids: tokenIdListSchema.optional(),
  top_p_kept_token_offsets: z.array(z.number().int().nonnegative()).optional(),
});
export type MetaInfoWire = z.infer<typeof metaInfoSchema>;

/** One /generate reply item (non-streaming body, one SSE chunk, or one batch element). */
export const generateResponseSchema = z.looseObject({
  text: z.string().optional(),
  output_ids: tokenIdListSchema.optional(),
  meta_info: metaInfoSchema,
  /** Streaming batch only: position of this item in the batch. */
  index: z.number().int().optional(),
});
export type GenerateResponseWire = z.infer<typeof generateResponseSchema>;

/** Non-streaming batch reply: one item per prompt, in input order (docs/sglang.md). */
export const batchResponseSchema = z.array(generateResponseSchema);

/** `sampling_params` we send explicitly (docs/sglang.md); extra keys pass through. */
export const samplingParamsSchema = z.looseObject({
  max_new_tokens: z.number().int().nonnegative().optional(),
  temperature: z.number().nonnegative().optional(),
  top_p: z.number().gt(0).lte(1).optional(),
  top_k: z.number().int().optional(),
  min_p: z.number().min(0).max(1).optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stop_token_ids: z.array(tokenId).optional(),
  ignore_eos: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  spaces_between_special_tokens: z.boolean().optional(),
  no_stop_trim: z.boolean().optional(),
  sampling_seed: z.number().int().optional(),
});
export type SamplingParamsWire = z.infer<typeof samplingParamsSchema>;

/** The /generate request body for one `input_ids` prompt (docs/sglang.md). */
export const generateRequestSchema = z.looseObject({
  input_ids: z.array(tokenId).min(1),
  sampling_params: samplingParamsSchema,
  return_logprob: z.boolean(),
  logprob_start_len: z.number().int().min(-1),
  top_logprobs_num: z.number().int().nonnegative().optional(),
  rid: z.string().min(1),
  stream: z.boolean(),
});
export type GenerateRequestWire = z.infer<typeof generateRequestSchema>;

/** `400 {"error":{"message"}}`: semantic errors raised while tokenizing/validating (docs/sglang.md). */
export const semanticErrorBodySchema = z.looseObject({
  error: z.looseObject({ message: z.string() }),
});
/** Newer schema-validation 400s and scheduler 503/500 aborts: OpenAI-style ErrorResponse. */
export const errorResponseBodySchema = z.looseObject({
  object: z.literal("error"),
  message: z.string(),
  type: z.string().optional(),
  code: z.number().int().optional(),
});
/** Older FastAPI validation 422 (and 404): `{"detail": ...}`. */
export const detailErrorBodySchema = z.looseObject({ detail: z.unknown() });

/** `/get_model_info` or `/model_info` (docs/sglang.md). */
export const modelInfoSchema = z.looseObject({
  model_path: z.string(),
  tokenizer_path: z.string().nullish(),
  is_generation: z.boolean().optional(),
  weight_version: z.string().optional(),
  preferred_sampling_params: z.unknown().optional(),
});
export type ModelInfoWire = z.infer<typeof modelInfoSchema>;

/** `/get_server_info` or `/server_info`: a flat dict of server args plus scheduler info. */
export const serverInfoSchema = z.looseObject({
  context_length: z.number().int().nullish(),
  max_req_input_len: z.number().int().optional(),
  max_total_num_tokens: z.number().int().optional(),
  version: z.string().optional(),
});
export type ServerInfoWire = z.infer<typeof serverInfoSchema>;

/** `GET /v1/models`; `max_model_len` is the context window in tokens. */
export const modelsListSchema = z.looseObject({
  object: z.literal("list").optional(),
  data: z.array(
    z.looseObject({
      id: z.string(),
      object: z.string().optional(),
      max_model_len: z.number().int().nullish(),
      root: z.string().nullish(),
    }),
  ),
});
export type ModelsListWire = z.infer<typeof modelsListSchema>;

/** The message carried by any §5 error body, or undefined when the body has none. */
export function errorMessageOf(body: unknown): string | undefined {
  const semantic = semanticErrorBodySchema.safeParse(body);
  if (semantic.success) return semantic.data.error.message;
  const response = errorResponseBodySchema.safeParse(body);
  if (response.success) return response.data.message;
  const detail = detailErrorBodySchema.safeParse(body);
  if (detail.success) {
    const value = detail.data.detail;
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  return undefined;
}

const CONTEXT_LENGTH_MARKERS = [
  "is longer than the model's context length",
  "requested token count exceeds the model's maximum context length",
];

/** True when an error message is one of SGLang's context-length rejections (docs/sglang.md). */
export function isContextLengthMessage(message: string): boolean {
  const lower = message.toLowerCase();
  return CONTEXT_LENGTH_MARKERS.some((marker) => lower.includes(marker));
}

/**
 * The largest `max_new_tokens` (in tokens) that fits: `contextLength - promptTokens`, capped at
 * `wanted`. Older servers reject when the sum equals the window, so we keep one token of slack.
 */
export function fitMaxNewTokens(
  contextLength: number,
  promptTokens: number,
  wanted: number,
): number {
  return Math.max(0, Math.min(wanted, contextLength - promptTokens - 1));
}

import type { CallRetry, FinishReason, TopLogprob } from "../../src/core/trajectory/types";
import {
  type FinishReasonWire,
  type GenerateResponseWire,
  generateResponseSchema,
  type LogprobTuple,
  type MetaInfoWire,
} from "../../src/core/wire/sglang";

/** Token accounting of one /generate reply (docs/sglang.md); counts are tokens, latency seconds. */
export interface GenerateUsage {
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
  readonly cachedTokens: number | undefined;
  readonly e2eLatencySeconds: number | undefined;
  readonly weightVersion: string | undefined;
}

/** One generation, normalized: ids are authoritative, `text` is display only (docs/sglang.md). */
export interface GenerateResult {
  readonly rid: string;
  readonly text: string;
  readonly outputIds: readonly number[];
  /** One entry per output id; undefined when logprobs were not returned (e.g. abort before prefill). */
  readonly outputLogprobs: readonly (number | null)[] | undefined;
  readonly outputTopLogprobs: readonly (readonly TopLogprob[] | null)[] | undefined;
  /**
   * Per output id, the ids the sampler kept (slime's top-p patch, docs/sglang.md "Kept sets");
   * undefined when the server sent none (stock SGLang).
   */
  readonly outputKeptIds?: readonly (readonly number[] | null)[] | undefined;
  /** Aligned with `input_ids[logprob_start_len:]`; entry 0 is always null (docs/sglang.md). */
  readonly inputLogprobs: readonly (number | null)[] | undefined;
  /** null only on intermediate stream snapshots. */
  readonly finishReason: FinishReason | null;
  readonly usage: GenerateUsage;
  /** The raw `meta_info`, unknown keys included, kept verbatim. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** A generation plus where and after how many attempts it was obtained (what the client returns). */
export interface ClientGenerateResult extends GenerateResult {
  readonly upstream: string;
  readonly attempts: number;
  /** The failed attempts before the one that answered (empty when the first did). */
  readonly retries: readonly CallRetry[];
}

export type NormalizeOutcome =
  | { readonly ok: true; readonly value: GenerateResult }
  | { readonly ok: false; readonly error: string };

/** Maps a wire finish_reason onto the shared FinishReason union (a stop-id list keeps its first id). */
export function toFinishReason(wire: FinishReasonWire): FinishReason {
  switch (wire.type) {
    case "stop": {
      const m = wire.matched;
      return { type: "stop", matched: Array.isArray(m) ? (m[0] ?? null) : (m ?? null) };
    }
    case "length":
      return wire.length === undefined
        ? { type: "length" }
        : { type: "length", length: wire.length };
    case "abort":
      return {
        type: "abort",
        ...(wire.message == null ? {} : { message: wire.message }),
        ...(wire.status_code == null ? {} : { statusCode: wire.status_code }),
        ...(wire.err_type == null ? {} : { errType: wire.err_type }),
      };
    default:
      return assertNever(wire);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected finish_reason ${JSON.stringify(value)}`);
}

function toTopLogprobs(
  list: readonly (readonly LogprobTuple[] | null)[] | undefined,
): (readonly TopLogprob[] | null)[] | undefined {
  return list?.map((pos) =>
    pos === null ? null : pos.map((t) => ({ tokenId: t[1], logprob: t[0] ?? -Infinity })),
  );
}

type KeptOutcome =
  | { readonly ok: true; readonly value: (readonly number[])[] | undefined }
  | { readonly ok: false; readonly error: string };

/**
 * `top_p_kept_token_ids` cut by `top_p_kept_token_offsets`, one list per token; `tokens` is the
 * count the offsets must cover (undefined: any, for stream chunks).
 */
function keptSets(meta: MetaInfoWire, where: string, tokens: number | undefined): KeptOutcome {
  const ids = meta.top_p_kept_token_ids;
  const offsets = meta.top_p_kept_token_offsets;
  if (ids === undefined && offsets === undefined) return { ok: true, value: undefined };
  const field = `${where}: meta_info.top_p_kept_token_offsets`;
  if (ids === undefined || offsets === undefined) {
    const missing = ids === undefined ? "top_p_kept_token_ids" : "top_p_kept_token_offsets";
    return { ok: false, error: `${where}: meta_info.${missing} is missing (the other is present)` };
  }
  if (tokens !== undefined && offsets.length !== tokens + 1) {
    return {
      ok: false,
      error: `${field} has ${offsets.length} entries for ${tokens} output_ids (one more is expected)`,
    };
  }
  if (offsets[0] !== 0 || offsets.at(-1) !== ids.length) {
    return {
      ok: false,
      error: `${field} must run from 0 to ${ids.length}, the length of top_p_kept_token_ids`,
    };
  }
  const value: (readonly number[])[] = [];
  for (let i = 1; i < offsets.length; i++) {
    const from = offsets[i - 1] as number;
    const to = offsets[i] as number;
    if (to < from)
      return { ok: false, error: `${field}[${i}] is ${to}, below the one before (${from})` };
    value.push(ids.slice(from, to));
  }
  return { ok: true, value };
}

/**
 * Normalizes one already-schema-checked reply item; `where` names it in error messages. Stream
 * chunks skip the ids/logprobs length check: older servers sent delta ids with cumulative logprobs.
 */
export function normalizeItem(
  item: GenerateResponseWire,
  where: string,
  isStreamChunk = false,
): NormalizeOutcome {
  const meta = item.meta_info;
  const lps = meta.output_token_logprobs;
  // Older servers omit output_ids in text mode; the ids inside the logprob tuples are the same
  // tokens in the same order (docs/sglang.md, fallback order output_ids → output_token_logprobs → error).
  const outputIds = item.output_ids ?? lps?.map((t) => t[1]);
  const isAbort = meta.finish_reason?.type === "abort";
  if (outputIds === undefined && !isAbort) {
    return {
      ok: false,
      error: `${where}: neither output_ids nor meta_info.output_token_logprobs is present`,
    };
  }
  const ids = outputIds ?? [];
  if (!isStreamChunk && lps !== undefined && lps.length !== ids.length) {
    return {
      ok: false,
      error: `${where}: meta_info.output_token_logprobs has ${lps.length} entries for ${ids.length} output_ids`,
    };
  }
  const kept = keptSets(meta, where, isStreamChunk ? undefined : ids.length);
  if (!kept.ok) return kept;
  return {
    ok: true,
    value: {
      rid: meta.id,
      text: item.text ?? "",
      outputIds: ids,
      outputLogprobs: lps?.map((t) => t[0]),
      outputTopLogprobs: toTopLogprobs(meta.output_top_logprobs),
      outputKeptIds: kept.value,
      inputLogprobs: meta.input_token_logprobs?.map((t) => t[0]),
      finishReason: meta.finish_reason ? toFinishReason(meta.finish_reason) : null,
      usage: {
        promptTokens: meta.prompt_tokens,
        completionTokens: meta.completion_tokens,
        cachedTokens: meta.cached_tokens,
        e2eLatencySeconds: meta.e2e_latency,
        weightVersion: meta.weight_version,
      },
      meta,
    },
  };
}

/** Validates and normalizes one parsed JSON reply item; `where` names it in error messages. */
export function normalizeResponse(
  json: unknown,
  where: string,
  isStreamChunk = false,
): NormalizeOutcome {
  const parsed = generateResponseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue ? issue.path.join(".") || "(root)" : "(root)";
    return { ok: false, error: `${where}: field ${path}: ${issue?.message ?? "invalid"}` };
  }
  return normalizeItem(parsed.data, where, isStreamChunk);
}

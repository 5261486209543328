import { z } from "zod";
import type { TopLogprob } from "../../src/core/trajectory/types";
import { isLogprobTuple, topLogprobsSchema } from "../../src/core/wire/sglang";
import { SglangContextLengthError, SglangDecodingError } from "./errors";
import type { GenerateRequest } from "./generateBody";
import type { ClientGenerateResult } from "./normalize";

/**
 * Rescoring a token sequence with SGLang (docs/mismatch.md): one /generate with the exact ids,
 * `max_new_tokens: 0`, `return_logprob: true` and `logprob_start_len: 0` (always sent: newer
 * servers otherwise return only the last position). `meta_info.input_token_logprobs` then covers
 * every input id one to one, entry 0 null (docs/sglang.md), so entry k is log P(ids[k] | ids[:k]).
 */
export interface RescoreRequest {
  readonly inputIds: readonly number[];
  /** Logprobs are of the temperature-scaled distribution (docs/sglang.md): pass the sampling one. */
  readonly temperature?: number;
  /** Sent as `sampling_seed` when the trajectory was sampled with one. */
  readonly samplingSeed?: number;
  readonly rid?: string;
  /**
   * First id scored (default 0, every id). The bisect lab's token-by-token scoring sends the
   * ids up to token t with start t − 1: the prefix before it can come from the cache.
   */
  readonly logprobStartLen?: number;
  /** Ask `input_top_logprobs` with this many alternatives per position (0 or absent: none). */
  readonly topLogprobsNum?: number;
}

/** The lane and where it came from. */
export interface RescoreResult {
  /** One logprob per input id, null at position 0 (nothing precedes it). */
  readonly lane: (number | null)[];
  /** One entry per input id when top logprobs were asked (null where none came), else undefined. */
  readonly topLogprobs?: (readonly TopLogprob[] | null)[];
  readonly model?: string;
  readonly weightVersion?: string;
  readonly upstream: string;
  readonly attempts: number;
  readonly createdAt: string;
}

/** The /generate request of a rescore. */
export function rescoreGenerateRequest(r: RescoreRequest): GenerateRequest {
  return {
    inputIds: r.inputIds,
    samplingParams: {
      max_new_tokens: 0,
      ...(r.temperature === undefined ? {} : { temperature: r.temperature }),
      ...(r.samplingSeed === undefined ? {} : { sampling_seed: r.samplingSeed }),
    },
    returnLogprob: true,
    logprobStartLen: r.logprobStartLen ?? 0,
    ...(r.topLogprobsNum ? { topLogprobsNum: r.topLogprobsNum } : {}),
    ...(r.rid === undefined ? {} : { rid: r.rid }),
  };
}

/** The context window a server reports: `context_length`, `max_model_len`; undefined if none. */
export function contextLengthOf(
  serverInfo: { context_length?: number | null } | undefined,
  models: { data: readonly { max_model_len?: number | null }[] } | undefined,
): number | undefined {
  return serverInfo?.context_length ?? models?.data[0]?.max_model_len ?? undefined;
}

/** Refuses a sequence the server could not hold, before it is sent (SGLang: input < context). */
export function checkContextLength(length: number, contextLength: number | undefined): void {
  if (contextLength !== undefined && length > contextLength) {
    throw new SglangContextLengthError(
      `rescoring ${length} tokens, but the model's context length is ${contextLength}`,
    );
  }
}

const inputLogprobsSchema = z.array(z.custom<readonly [number | null, number]>(isLogprobTuple));

/**
 * The lane from a rescore reply: entry k of `input_token_logprobs` must be about ids[start + k]
 * (its token id slot), and there must be exactly one entry per id from `start` on; the first
 * entry is null whatever it says, and so is every position before `start`.
 */
export function laneFromRescore(
  ids: readonly number[],
  result: ClientGenerateResult,
  start = 0,
): (number | null)[] {
  const parsed = inputLogprobsSchema.safeParse(result.meta.input_token_logprobs);
  const where = `${result.upstream}/generate`;
  const fail = (message: string) =>
    new SglangDecodingError(`${where}: ${message}`, false, "", { upstream: result.upstream });
  if (!parsed.success) throw fail("meta_info.input_token_logprobs is missing or malformed");
  const tuples = parsed.data;
  if (tuples.length !== ids.length - start) {
    throw fail(
      `meta_info.input_token_logprobs has ${tuples.length} entries for ${ids.length - start} input ids (logprob_start_len ${start})`,
    );
  }
  const lane: (number | null)[] = new Array(ids.length).fill(null);
  for (let k = 0; k < tuples.length; k++) {
    const t = tuples[k] as readonly [number | null, number];
    if (t[1] !== ids[start + k]) {
      throw fail(
        `input_token_logprobs[${k}] is about token ${t[1]}, not input id ${ids[start + k]}`,
      );
    }
    lane[start + k] = k === 0 ? null : t[0];
  }
  return lane;
}

/**
 * `input_top_logprobs` spread over the ids (entry k about ids[start + k]); undefined when the
 * reply has none. A malformed list is a decoding error, as a malformed lane is.
 */
export function topLogprobsFromRescore(
  ids: readonly number[],
  result: ClientGenerateResult,
  start = 0,
): (readonly TopLogprob[] | null)[] | undefined {
  const raw = result.meta.input_top_logprobs;
  if (raw === undefined) return undefined;
  const parsed = topLogprobsSchema.safeParse(raw);
  if (!parsed.success || parsed.data.length !== ids.length - start) {
    throw new SglangDecodingError(
      `${result.upstream}/generate: meta_info.input_top_logprobs is malformed or not one list per scored id`,
      false,
      "",
      { upstream: result.upstream },
    );
  }
  const out: (readonly TopLogprob[] | null)[] = new Array(ids.length).fill(null);
  parsed.data.forEach((list, k) => {
    out[start + k] =
      list === null
        ? null
        : list.flatMap(([logprob, tokenId]) => (logprob === null ? [] : [{ tokenId, logprob }]));
  });
  return out;
}

/** A rescore's result from its reply: the lane, the top-k when asked, and where it came from. */
export function rescoreResultOf(
  request: RescoreRequest,
  result: ClientGenerateResult,
  model: string | undefined,
): RescoreResult {
  const start = request.logprobStartLen ?? 0;
  const topLogprobs = request.topLogprobsNum
    ? topLogprobsFromRescore(request.inputIds, result, start)
    : undefined;
  return {
    lane: laneFromRescore(request.inputIds, result, start),
    ...(topLogprobs === undefined ? {} : { topLogprobs }),
    model,
    weightVersion: result.usage.weightVersion,
    upstream: result.upstream,
    attempts: result.attempts,
    createdAt: new Date().toISOString(),
  };
}

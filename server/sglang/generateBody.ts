import type { SamplingParamsWire } from "../../src/core/wire/sglang";

/** One `input_ids` generation request (docs/sglang.md). */
export interface GenerateRequest {
  readonly inputIds: readonly number[];
  /** Always sent explicitly: newer servers otherwise take the model's generation_config defaults. */
  readonly samplingParams: SamplingParamsWire;
  /** Default true. */
  readonly returnLogprob?: boolean;
  /** Default `inputIds.length - 1`: no prompt logprobs and the prefix cache stays usable (§1.3). */
  readonly logprobStartLen?: number;
  readonly topLogprobsNum?: number;
  /** Rid of the first attempt; retries always use fresh ids. Must be prefix-free; default newRid(). */
  readonly rid?: string;
  /** Extra top-level request fields, passed through untouched. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The JSON body of one /generate call (docs/sglang.md). */
export function buildGenerateBody(
  request: GenerateRequest,
  rid: string,
  stream: boolean,
): Record<string, unknown> {
  // A literal of fixed shape, no spreads: V8's JSON.stringify fast path then applies, measured
  // ~5 µs faster per 512-token prompt than the spread version.
  const body: Record<string, unknown> = {
    input_ids: request.inputIds,
    sampling_params: request.samplingParams,
    return_logprob: request.returnLogprob ?? true,
    logprob_start_len: request.logprobStartLen ?? request.inputIds.length - 1,
    rid,
    stream,
  };
  if (request.topLogprobsNum) body.top_logprobs_num = request.topLogprobsNum;
  return request.extra ? { ...request.extra, ...body } : body;
}

/** Rejects requests SGLang would 400 anyway, before they take a slot or an attempt. */
export function checkRequest(request: GenerateRequest): void {
  if (request.inputIds.length === 0) {
    throw new RangeError("generate: request.inputIds is empty; SGLang rejects empty prompts");
  }
  const start = request.logprobStartLen;
  if (start !== undefined && start >= request.inputIds.length) {
    throw new RangeError(
      `generate: request.logprobStartLen ${start} must be < inputIds.length ${request.inputIds.length}`,
    );
  }
}

/**
 * The JSON body of one batch /generate (docs/sglang.md): per-item lists for every per-item field, and
 * one string rid, which SGLang expands to `<rid>_<i>` (an /abort_request for the rid, matched by
 * prefix, then stops every item).
 */
export function buildBatchBody(
  requests: readonly GenerateRequest[],
  rid: string,
): Record<string, unknown> {
  return {
    input_ids: requests.map((r) => r.inputIds),
    sampling_params: requests.map((r) => r.samplingParams),
    return_logprob: requests.map((r) => r.returnLogprob ?? true),
    logprob_start_len: requests.map((r) => r.logprobStartLen ?? r.inputIds.length - 1),
    top_logprobs_num: requests.map((r) => r.topLogprobsNum ?? 0),
    rid,
    stream: false,
  };
}

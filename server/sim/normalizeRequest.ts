import { randomUUID } from "node:crypto";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { type PolicyName, policyNameSchema } from "./options";
import type { GenerateBody, SamplingParamsBody } from "./requestSchema";

/** A semantic rejection: SGLang answers 400 `{"error":{"message":...}}`. */
export class SimRequestError extends Error {
  override readonly name = "SimRequestError";
}

export interface SamplingSettings {
  readonly maxNewTokens: number;
  readonly temperature: number;
  readonly topP: number;
  readonly topK: number;
  readonly minP: number;
  readonly stop: readonly string[];
  readonly stopTokenIds: readonly number[];
  readonly isIgnoringEos: boolean;
  readonly isSkippingSpecialTokens: boolean;
  readonly isKeepingStop: boolean;
  readonly seed: number | undefined;
}

/** One prompt of a `/generate` call with every default applied. */
export interface GenerateItem {
  readonly rid: string;
  readonly promptIds: readonly number[];
  readonly sampling: SamplingSettings;
  readonly policy: PolicyName;
  readonly returnLogprob: boolean;
  /** Absolute prompt index of the first `input_token_logprobs` entry. */
  readonly logprobStartLen: number;
  readonly topLogprobsNum: number;
  readonly tokenIdsLogprob: readonly number[] | undefined;
  readonly returnTextInLogprobs: boolean;
  /** `return_routed_experts`: answered only when the simulator has a routing shape. */
  readonly returnRoutedExperts: boolean;
}

export interface GenerateCall {
  readonly items: readonly GenerateItem[];
  readonly isBatch: boolean;
  readonly isStream: boolean;
}

interface Limits {
  readonly tokenizer: Tokenizer;
  readonly contextLength: number;
  readonly defaultPolicy: PolicyName;
}

function fail(message: string): never {
  throw new SimRequestError(message);
}

function pick<T extends number | boolean | SamplingParamsBody>(
  value: T | readonly T[] | null | undefined,
  i: number,
  size: number,
  name: string,
): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isList(value)) return value;
  if (value.length !== size) {
    fail(`The length of ${name} (${value.length}) does not match the batch size (${size}).`);
  }
  const item: T | undefined = value[i];
  return item;
}

function isList<T>(value: T | readonly T[]): value is readonly T[] {
  return Array.isArray(value);
}

function isIdMatrix(value: number[] | number[][]): value is number[][] {
  return value.length > 0 && Array.isArray(value[0]);
}

function promptsOf(
  body: GenerateBody,
  tokenizer: Tokenizer,
): { prompts: number[][]; isBatch: boolean } {
  const ids = body.input_ids;
  if (ids !== null && ids !== undefined) {
    return isIdMatrix(ids) ? { prompts: ids, isBatch: true } : { prompts: [ids], isBatch: false };
  }
  const text = body.text;
  if (typeof text === "string") return { prompts: [tokenizer.encode(text)], isBatch: false };
  if (Array.isArray(text)) return { prompts: text.map((t) => tokenizer.encode(t)), isBatch: true };
  if (body.input_embeds !== undefined && body.input_embeds !== null) {
    fail("The simulator does not support input_embeds; send input_ids or text.");
  }
  return fail("Either text, input_ids or input_embeds should be provided.");
}

function verifySampling(sp: SamplingParamsBody): SamplingSettings {
  const maxNewTokens = sp.max_new_tokens ?? 128;
  const temperature = sp.temperature ?? 1;
  const topP = sp.top_p ?? 1;
  const topK = sp.top_k ?? -1;
  const minP = sp.min_p ?? 0;
  if (temperature < 0) fail(`temperature must be non-negative, got ${temperature}.`);
  if (!(topP > 0 && topP <= 1)) fail(`top_p must be in (0, 1], got ${topP}.`);
  if (minP < 0 || minP > 1) fail(`min_p must be in [0, 1], got ${minP}.`);
  if (topK < 1 && topK !== -1) fail(`top_k must be -1 (disable), or at least 1, got ${topK}.`);
  if (maxNewTokens < 0) fail(`max_new_tokens must be at least 0, got ${maxNewTokens}.`);
  const grammars = [sp.json_schema, sp.regex, sp.ebnf].filter((g) => g !== null && g !== undefined);
  if (grammars.length > 1) fail("Only one of regex, json_schema, or ebnf can be set.");
  const stop = sp.stop ?? [];
  return {
    maxNewTokens,
    temperature,
    topP,
    topK,
    minP,
    stop: typeof stop === "string" ? [stop] : stop,
    stopTokenIds: sp.stop_token_ids ?? [],
    isIgnoringEos: sp.ignore_eos ?? false,
    isSkippingSpecialTokens: sp.skip_special_tokens ?? true,
    isKeepingStop: sp.no_stop_trim ?? false,
    seed: sp.sampling_seed ?? undefined,
  };
}

function policyOf(sp: SamplingParamsBody, fallback: PolicyName): PolicyName {
  const name = sp.custom_params?.policy;
  if (name === undefined) return fallback;
  const parsed = policyNameSchema.safeParse(name);
  if (!parsed.success) {
    fail(
      `Unknown simulator policy "${name}" in sampling_params.custom_params.policy; expected one of: ${policyNameSchema.options.join(", ")}.`,
    );
  }
  return parsed.data;
}

function validatePrompt(ids: readonly number[], sampling: SamplingSettings, limits: Limits): void {
  if (ids.length === 0) fail("input_ids cannot be empty.");
  const vocab = limits.tokenizer.vocabSize;
  const bad = ids.findIndex((id) => id < 0 || id >= vocab);
  if (bad >= 0) {
    fail(
      `The input_ids contains values greater than the vocab size (${vocab}): id ${ids[bad]} at position ${bad}.`,
    );
  }
  const context = limits.contextLength;
  if (ids.length >= context) {
    fail(
      `The input (${ids.length} tokens) is longer than the model's context length (${context} tokens).`,
    );
  }
  const total = ids.length + sampling.maxNewTokens;
  if (total > context) {
    fail(
      `Requested token count exceeds the model's maximum context length of ${context} tokens. You requested a total of ${total} tokens: ${ids.length} tokens from the input messages and ${sampling.maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`,
    );
  }
}

function newRid(): string {
  return randomUUID().replaceAll("-", "");
}

function ridsOf(body: GenerateBody, size: number, isBatch: boolean, n: number): string[] {
  const rid = body.rid;
  if (n > 1) return Array.from({ length: size }, newRid);
  if (Array.isArray(rid)) {
    if (rid.length !== size)
      fail(`The length of rid (${rid.length}) does not match the batch size (${size}).`);
    const dup = rid.find((r, i) => rid.indexOf(r) !== i);
    if (dup !== undefined) fail(`Duplicate request ID found: ${dup}`);
    return [...rid];
  }
  if (typeof rid === "string") {
    return isBatch ? Array.from({ length: size }, (_, i) => `${rid}_${i}`) : [rid];
  }
  return Array.from({ length: size }, newRid);
}

/** Turns a schema-valid body into fully-defaulted items, or throws `SimRequestError` like SGLang. */
export function normalizeRequest(body: GenerateBody, limits: Limits): GenerateCall {
  const { prompts: basePrompts, isBatch: isListBatch } = promptsOf(body, limits.tokenizer);
  const firstParams = Array.isArray(body.sampling_params) ? undefined : body.sampling_params;
  const n = firstParams?.n ?? 1;
  const prompts =
    n > 1 && !isListBatch ? Array.from({ length: n }, () => basePrompts[0] ?? []) : basePrompts;
  const isBatch = isListBatch || n > 1;
  const size = prompts.length;
  if (size === 0) fail("input_ids cannot be empty.");
  const rids = ridsOf(body, size, isListBatch, n);
  const items = prompts.map((promptIds, i): GenerateItem => {
    const sp: SamplingParamsBody =
      pick<SamplingParamsBody>(body.sampling_params, i, size, "sampling_params") ?? {};
    const sampling = verifySampling(sp);
    validatePrompt(promptIds, sampling, limits);
    const returnLogprob = pick(body.return_logprob, i, size, "return_logprob") ?? false;
    const start = pick(body.logprob_start_len, i, size, "logprob_start_len") ?? -1;
    if (start >= promptIds.length) {
      fail(
        `logprob_start_len (${start}) is higher than the number of input tokens (${promptIds.length}). Request with a lower logprob_start_len.`,
      );
    }
    const tokenIds = body.token_ids_logprob;
    const tokenIdsLogprob =
      tokenIds === null || tokenIds === undefined
        ? undefined
        : isIdMatrix(tokenIds)
          ? tokenIds[i]
          : tokenIds;
    return {
      rid: rids[i] ?? newRid(),
      promptIds,
      sampling,
      policy: policyOf(sp, limits.defaultPolicy),
      returnLogprob,
      logprobStartLen: start < 0 ? promptIds.length - 1 : start,
      topLogprobsNum: pick(body.top_logprobs_num, i, size, "top_logprobs_num") ?? 0,
      tokenIdsLogprob: Array.isArray(tokenIdsLogprob) ? tokenIdsLogprob : undefined,
      returnTextInLogprobs: body.return_text_in_logprobs ?? false,
      returnRoutedExperts: body.return_routed_experts ?? false,
    };
  });
  return { items, isBatch, isStream: body.stream ?? false };
}

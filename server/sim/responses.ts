import type { Tokenizer } from "../../src/core/tokenizer/types";
import { type RoutingShape, routedExpertsAt } from "./distribution";
import type { Completion, FinishReason } from "./engine";
import { type LogprobModel, prefixKeys, type ScoredToken } from "./logprobs";
import type { GenerateItem } from "./normalizeRequest";

type LogprobTuple = [number | null, number, string | null];

/** One item of a `/generate` call, generated up front and then played out token by token. */
export interface ItemTrace {
  readonly item: GenerateItem;
  readonly completion: Completion;
  readonly cachedTokens: number;
  readonly outputLogprobs: readonly number[];
  readonly model: LogprobModel;
  readonly startedAt: number;
  /** Set when the simulator answers `return_routed_experts`. */
  readonly routing?: RoutingReply;
}

function tuple(
  tokenizer: Tokenizer,
  item: GenerateItem,
  logprob: number | null,
  id: number,
): LogprobTuple {
  return [logprob, id, item.returnTextInLogprobs ? tokenizer.decode([id]) : null];
}

function inputLogprobKeys(tokenizer: Tokenizer, trace: ItemTrace): Record<string, unknown> {
  const { item, model } = trace;
  const positions = item.promptIds.slice(item.logprobStartLen).map((id, i) => ({
    id,
    position: item.logprobStartLen + i,
    logprob: i === 0 ? null : model.scoreInput(item.logprobStartLen + i, id),
  }));
  const keys: Record<string, unknown> = {
    input_token_logprobs: positions.map((p) => tuple(tokenizer, item, p.logprob, p.id)),
  };
  const withAlternatives = (list: (p: (typeof positions)[number], lp: number) => ScoredToken[]) =>
    positions.map((p) =>
      p.logprob === null
        ? null
        : list(p, p.logprob).map(([lp, id]) => tuple(tokenizer, item, lp, id)),
    );
  if (item.topLogprobsNum > 0) {
    keys.input_top_logprobs = withAlternatives((p, lp) =>
      (model.topKInput ?? model.topK)(p.position, p.id, lp, item.topLogprobsNum),
    );
  }
  const ids = item.tokenIdsLogprob;
  if (ids) {
    keys.input_token_ids_logprobs = withAlternatives((p, lp) =>
      (model.scoreIdsInput ?? model.scoreIds)(p.position, p.id, lp, ids),
    );
  }
  return keys;
}

function outputLogprobKeys(
  tokenizer: Tokenizer,
  trace: ItemTrace,
  from: number,
  to: number,
): Record<string, unknown> {
  const { item, model } = trace;
  const base = item.promptIds.length;
  const ids = trace.completion.outputIds.slice(from, to);
  const lps = trace.outputLogprobs.slice(from, to);
  const at = (i: number) => ({ id: ids[i] ?? 0, lp: lps[i] ?? 0, position: base + from + i });
  const keys: Record<string, unknown> = {
    output_token_logprobs: ids.map((_, i) => tuple(tokenizer, item, at(i).lp, at(i).id)),
  };
  if (item.topLogprobsNum > 0) {
    keys.output_top_logprobs = ids.map((_, i) => {
      const p = at(i);
      return model
        .topK(p.position, p.id, p.lp, item.topLogprobsNum)
        .map(([lp, id]) => tuple(tokenizer, item, lp, id));
    });
  }
  const wanted = item.tokenIdsLogprob;
  if (wanted) {
    keys.output_token_ids_logprobs = ids.map((_, i) => {
      const p = at(i);
      return model
        .scoreIds(p.position, p.id, p.lp, wanted)
        .map(([lp, id]) => tuple(tokenizer, item, lp, id));
    });
  }
  const kept = model.keptIds ? ids.map((_, i) => model.keptIds?.(at(i).position, at(i).id)) : [];
  if (kept.length > 0 && kept.every((k) => k !== undefined)) Object.assign(keys, keptKeys(kept));
  return keys;
}

/**
 * The kept set per output token as slime's SGLang patch returns it (`top_p_kept_token_ids`, flat,
 * cut by `top_p_kept_token_offsets`, one more offset than tokens, from 0): a simulator
 * extension, real SGLang has no such field.
 */
function keptKeys(kept: readonly (readonly number[] | undefined)[]): Record<string, number[]> {
  const flat: number[] = [];
  const offsets = [0];
  for (const ids of kept) {
    flat.push(...(ids ?? []));
    offsets.push(flat.length);
  }
  return { top_p_kept_token_ids: flat, top_p_kept_token_offsets: offsets };
}

/**
 * SGLang's `routed_experts`: base64 of int32 [prompt + output − 1, layers, top-k], row t the
 * experts chosen while token t was the input (the last token is never fed back).
 */
function routedExpertsKey(trace: ItemTrace, shown: number, shape: RoutingShape, seed: number) {
  const ids = [...trace.item.promptIds, ...trace.completion.outputIds.slice(0, shown)];
  const keys = prefixKeys(ids);
  const rows = Math.max(0, ids.length - 1);
  const flat = new Int32Array(rows * shape.layers * shape.topK);
  for (let t = 0; t < rows; t++) {
    const layers = routedExpertsAt(seed, keys[t + 1] ?? t, ids[t] ?? 0, shape);
    layers.forEach((experts, layer) => {
      flat.set(experts, (t * shape.layers + layer) * shape.topK);
    });
  }
  return Buffer.from(flat.buffer).toString("base64");
}

export interface BodyWindow {
  /** Output tokens produced so far. */
  readonly shown: number;
  /** First output token this body carries (0 = cumulative). */
  readonly from: number;
  readonly text: string;
  readonly finish: FinishReason | null;
  /** Whether input logprobs go into this body (always when cumulative; first chunk in delta mode). */
  readonly hasInputLogprobs: boolean;
}

/** The simulator's routing shape and seed, when it answers `return_routed_experts`. */
export interface RoutingReply {
  readonly shape: RoutingShape | undefined;
  readonly seed: number;
}

/** A §2-shaped `{text, output_ids, meta_info}` object for the window of `trace` given. */
export function itemBody(tokenizer: Tokenizer, trace: ItemTrace, window: BodyWindow) {
  const { item } = trace;
  const metaInfo: Record<string, unknown> = {
    id: item.rid,
    finish_reason: window.finish,
    prompt_tokens: item.promptIds.length,
    completion_tokens: window.shown,
    cached_tokens: trace.cachedTokens,
    weight_version: "default",
    total_retractions: 0,
  };
  if (item.returnLogprob) {
    if (window.hasInputLogprobs) Object.assign(metaInfo, inputLogprobKeys(tokenizer, trace));
    Object.assign(metaInfo, outputLogprobKeys(tokenizer, trace, window.from, window.shown));
  }
  const routing = trace.routing;
  if (item.returnRoutedExperts && routing?.shape && window.finish !== null) {
    metaInfo.routed_experts = routedExpertsKey(trace, window.shown, routing.shape, routing.seed);
  }
  if (window.finish !== null) metaInfo.e2e_latency = (Date.now() - trace.startedAt) / 1000;
  return {
    text: window.text,
    output_ids: trace.completion.outputIds.slice(window.from, window.shown),
    meta_info: metaInfo,
  };
}

/** The 200 body SGLang returns for a request aborted while still queued (docs/sglang.md). */
export function abortBeforePrefillBody(rid: string) {
  return {
    text: "",
    meta_info: {
      id: rid,
      finish_reason: { type: "abort", message: "Abort before prefill" },
      prompt_tokens: 0,
      completion_tokens: 0,
    },
  };
}

/** The finish reason of a request aborted while decoding. */
export const ABORT_WHILE_RUNNING: FinishReason = {
  type: "abort",
  message: "Aborted by /abort_request or client disconnect.",
  status_code: null,
  err_type: null,
};

/** Body of a semantic 400 (`{"error":{"message"}}`). */
export function semanticErrorBody(message: string) {
  return { error: { message } };
}

/** SGLang's ErrorResponse, used for schema 400s and 5xx (type is the status text / code). */
export function errorResponseBody(code: number, type: string, message: string) {
  return { object: "error", message, type, param: null, code };
}

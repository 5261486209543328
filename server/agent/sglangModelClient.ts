import type { CallRetry } from "../../src/core/trajectory/types";
import type { SamplingParamsWire } from "../../src/core/wire/sglang";
import { SglangAbortedError, SglangContextLengthError } from "../sglang/errors";
import type { GenerateResult } from "../sglang/normalize";
import type { ClientStreamStep, SglangClient } from "../sglang/sglangClient";
import {
  ContextOverflowError,
  type ModelClient,
  type ModelTurn,
  type ModelTurnRequest,
} from "./modelClient";

function toTurn(
  result: GenerateResult & {
    readonly upstream?: string;
    readonly retries?: readonly CallRetry[];
  },
): ModelTurn {
  const n = result.outputIds.length;
  return {
    rid: result.rid,
    outputIds: result.outputIds,
    // An upstream that returned no logprobs (e.g. an abort) records null, never a made-up value.
    logprobs: result.outputLogprobs ?? new Array<null>(n).fill(null),
    ...(result.outputTopLogprobs ? { topLogprobs: result.outputTopLogprobs } : {}),
    ...(result.outputKeptIds ? { keptIds: result.outputKeptIds } : {}),
    finishReason: result.finishReason ?? {
      type: "abort",
      message: "stream ended without a finish reason",
    },
    ...(result.usage.promptTokens === undefined ? {} : { promptTokens: result.usage.promptTokens }),
    ...(result.usage.cachedTokens === undefined ? {} : { cachedTokens: result.usage.cachedTokens }),
    ...(result.usage.e2eLatencySeconds === undefined
      ? {}
      : { e2eLatency: result.usage.e2eLatencySeconds }),
    ...(result.usage.weightVersion === undefined
      ? {}
      : { weightVersion: result.usage.weightVersion }),
    ...(result.upstream === undefined ? {} : { upstream: result.upstream }),
    ...(result.retries === undefined || result.retries.length === 0
      ? {}
      : { retries: result.retries }),
  };
}

/**
 * The episode runner's view of SGLang's native API. A server-side abort with partial output comes
 * back as an `abort` turn (its tokens are kept); a context-length 400 becomes ContextOverflowError.
 */
export async function createSglangModelClient(
  sglang: SglangClient,
  upstreamLabel: string,
): Promise<ModelClient> {
  let model = "unknown model";
  let contextLength: number | undefined;
  try {
    const info = await sglang.modelInfo();
    model = info.model_path ?? model;
  } catch (error) {
    console.warn(`model info unavailable from ${upstreamLabel}: ${String(error)}`);
  }
  try {
    const listed = await sglang.models();
    contextLength = listed.data[0]?.max_model_len ?? undefined;
  } catch (error) {
    console.warn(`context length unavailable from ${upstreamLabel}: ${String(error)}`);
  }

  async function generate(request: ModelTurnRequest): Promise<ModelTurn> {
    // The runner's sampling params are plain JSON from the API; SGLang validates them itself.
    const samplingParams: SamplingParamsWire = { ...request.samplingParams };
    const body = {
      inputIds: request.inputIds,
      samplingParams,
      ...(request.topLogprobsNum ? { topLogprobsNum: request.topLogprobsNum } : {}),
    };
    const options = {
      signal: request.signal,
      ...(request.preferredUpstream ? { preferUpstream: request.preferredUpstream } : {}),
    };
    try {
      if (!request.onDelta) return toTurn(await sglang.generate(body, options));
      let last: ClientStreamStep | undefined;
      for await (const step of sglang.generateStream(body, options)) {
        last = step;
        // Each step passes on only what it added: the events stay linear in the turn's tokens.
        if (step.delta.ids.length > 0) request.onDelta(step.delta);
      }
      if (!last) throw new Error("the stream ended before any output");
      return toTurn(last.result());
    } catch (error) {
      if (error instanceof SglangContextLengthError) throw new ContextOverflowError(error.message);
      if (error instanceof SglangAbortedError && error.origin === "server" && error.partial) {
        return toTurn(error.partial);
      }
      throw error;
    }
  }

  return {
    upstream: upstreamLabel,
    model,
    ...(contextLength === undefined ? {} : { contextLength }),
    generate,
  };
}

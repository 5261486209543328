import type { StreamDelta } from "../../src/core/trajectory/streamDelta";
import type { CallRetry, FinishReason, TopLogprob } from "../../src/core/trajectory/types";

/** One model turn exactly as the upstream returned it: `outputIds` keep the stop token. */
export interface ModelTurn {
  readonly rid: string;
  readonly outputIds: readonly number[];
  readonly logprobs: readonly (number | null)[];
  readonly topLogprobs?: readonly (readonly TopLogprob[] | null)[];
  /** Per output id, the ids the sampler kept, when the server returns them (docs/sglang.md "Kept sets"). */
  readonly keptIds?: readonly (readonly number[] | null)[];
  readonly finishReason: FinishReason;
  readonly promptTokens?: number;
  readonly cachedTokens?: number;
  readonly e2eLatency?: number;
  readonly weightVersion?: string;
  /** Base URL of the upstream that ran the call, when the client knows it. */
  readonly upstream?: string;
  /** The call's failed attempts before the one that answered (none: absent). */
  readonly retries?: readonly CallRetry[];
}

export interface ModelTurnRequest {
  readonly inputIds: readonly number[];
  readonly samplingParams: Readonly<Record<string, unknown>>;
  readonly topLogprobsNum?: number;
  readonly signal: AbortSignal;
  /** Run on this upstream (base URL) while it is healthy: it holds the episode's prefix cache. */
  readonly preferredUpstream?: string;
  /**
   * Called with what each stream step added (ids, logprobs, top-k, text; `tokens` is the turn's
   * count so far) while the turn streams (when supported).
   */
  readonly onDelta?: (delta: StreamDelta) => void;
}

/** What the episode runner needs from an inference server (SGLang's native API, or the simulator). */
export interface ModelClient {
  /** Shown in the UI: the SGLang URL(s), or "simulator". */
  readonly upstream: string;
  /** The model path the upstream reports. */
  readonly model: string;
  /** The context window, when the upstream told us (`/v1/models` max_model_len). */
  readonly contextLength?: number;
  generate(request: ModelTurnRequest): Promise<ModelTurn>;
}

/** Thrown (or mapped) when the prompt no longer fits the context window. */
export class ContextOverflowError extends Error {
  override readonly name = "ContextOverflowError";
}

import type { ForkedPrefix, PartialModel } from "../../src/core/tito/fork";
import { TitoLedger } from "../../src/core/tito/ledger";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";
import type { StartEpisodeRequest } from "../../src/core/wire/episodes";
import { fitMaxNewTokens } from "../../src/core/wire/sglang";
import type { EpisodeSink } from "./episodeSink";
import {
  ContextOverflowError,
  type ModelClient,
  type ModelTurn,
  type ModelTurnRequest,
} from "./modelClient";
import { type RunnerDeps, runEpisode } from "./runEpisode";

/** A fresh ledger holding the fork's whole segments (and the parent calls that produced them). */
export function ledgerFromFork(prefix: ForkedPrefix): TitoLedger {
  const ledger = new TitoLedger();
  let calls = 0;
  for (const segment of prefix.segments) {
    if (segment.kind === "model") {
      const call = prefix.calls[calls];
      const matches = call !== undefined && call.inputLen === ledger.length;
      if (matches) calls++;
      ledger.appendModel({
        outputIds: segment.tokenIds,
        logprobs: segment.logprobs,
        ...(segment.topLogprobs ? { topLogprobs: segment.topLogprobs } : {}),
        ...(segment.keptTokenIds ? { keptTokenIds: segment.keptTokenIds } : {}),
        ...(segment.text === undefined ? {} : { text: segment.text }),
        ...(segment.finishReason ? { finishReason: segment.finishReason } : {}),
        ...(segment.toolCalls ? { toolCalls: segment.toolCalls } : {}),
        ...(matches ? { call } : {}),
      });
    } else {
      const input = {
        tokenIds: segment.tokenIds,
        logprobs: segment.logprobs,
        ...(segment.text === undefined ? {} : { text: segment.text }),
      };
      if (segment.kind === "prompt") ledger.appendPrompt(input);
      else ledger.appendTool(input);
      if (segment.edited) ledger.annotate(ledger.lastSegmentIndex, { edited: true });
    }
  }
  return ledger;
}

/**
 * The model client of a branch forked inside a model segment: its first call sends the parent's
 * tokens of that segment after the ledger (so `input_ids` are exactly the parent's ids 0..N-1), and
 * its answer carries them in front, so the ledger records one model segment that starts with the
 * parent's tokens and whose first generated token is position N.
 */
function continuingClient(client: ModelClient, prefix: ForkedPrefix): ModelClient {
  const { partial } = prefix;
  if (!partial) return client;
  let first = true;
  // Everything else of the client (getters, later additions) is the client's own.
  const wrapped: ModelClient = Object.create(client);
  Object.defineProperty(wrapped, "generate", {
    value: async (request: ModelTurnRequest): Promise<ModelTurn> => {
      if (!first) return client.generate(request);
      first = false;
      const inputIds = [...request.inputIds, ...partial.tokenIds];
      // The runner fitted max_new_tokens to the ledger; the parent's tokens before N count too.
      const { contextLength } = client;
      const wanted = Number(request.samplingParams.max_new_tokens ?? Number.POSITIVE_INFINITY);
      // One token of slack, as the runner keeps (older servers reject a sum equal to the window).
      const fitted =
        contextLength === undefined
          ? wanted
          : fitMaxNewTokens(contextLength, inputIds.length, wanted);
      if (fitted <= 0) {
        throw new ContextOverflowError(
          `the fork's prefix (${inputIds.length} tokens) fills the context window (${contextLength})`,
        );
      }
      const samplingParams =
        fitted < wanted
          ? { ...request.samplingParams, max_new_tokens: fitted }
          : request.samplingParams;
      const turn = await client.generate({ ...request, inputIds, samplingParams });
      const topLogprobs = joinAligned(partial.topLogprobs, turn.topLogprobs, partial, turn);
      const keptIds = joinAligned(partial.keptTokenIds, turn.keptIds, partial, turn);
      return {
        ...turn,
        outputIds: [...partial.tokenIds, ...turn.outputIds],
        logprobs: [...partial.logprobs, ...turn.logprobs],
        ...(topLogprobs ? { topLogprobs } : {}),
        ...(keptIds ? { keptIds } : {}),
      };
    },
  });
  return wrapped;
}

/** A per-token list of the parent's tokens before N followed by the turn's, null where either had none. */
function joinAligned<T>(
  before: readonly (T | null)[] | undefined,
  after: readonly (T | null)[] | undefined,
  partial: PartialModel,
  turn: ModelTurn,
): (T | null)[] | undefined {
  if (!before && !after) return undefined;
  return [
    ...(before ?? partial.tokenIds.map(() => null)),
    ...(after ?? turn.outputIds.map(() => null)),
  ];
}

/** The parent's model tokens before N as a segment of their own (a branch that has no reply yet). */
function partialSegment(partial: PartialModel, ending?: string): Segment {
  const n = partial.tokenIds.length;
  return {
    kind: "model",
    turn: partial.turn,
    tokenIds: partial.tokenIds.slice(),
    lossMask: new Array<1>(n).fill(1),
    logprobs: partial.logprobs.slice(),
    ...(partial.topLogprobs ? { topLogprobs: partial.topLogprobs.slice() } : {}),
    ...(partial.keptTokenIds ? { keptTokenIds: partial.keptTokenIds.slice() } : {}),
    ...(ending === undefined ? {} : { finishReason: { type: "abort", message: ending } }),
  };
}

/**
 * Runs a branch: the normal episode loop (same tools, limiter, parsers, store and SSE) going on
 * from the fork's prefix, with the lineage on every snapshot and on the final trajectory.
 *
 * A branch forked inside a model segment holds the parent's tokens before N from its start: until
 * the first reply lands they are published (and journaled) as the model segment the reply then
 * replaces at the same index, and a branch that ends before any reply (abort, upstream error,
 * a crash) keeps them, so its record always holds the fork_index tokens its lineage names.
 */
export async function runBranch(
  deps: RunnerDeps,
  request: StartEpisodeRequest,
  sink: EpisodeSink,
  prefix: ForkedPrefix,
): Promise<Trajectory> {
  const { lineage, partial } = prefix;
  const pendingIndex = prefix.segments.length;
  let isPending = partial !== undefined;
  const withPending = (t: Trajectory, ending?: string): Trajectory =>
    isPending && partial && t.segments.length === pendingIndex
      ? { ...t, segments: [...t.segments, partialSegment(partial, ending)] }
      : t;
  const branchSink: EpisodeSink = {
    id: sink.id,
    signal: sink.signal,
    emit: (event) => {
      if (event.type === "segment" && event.index >= pendingIndex) isPending = false;
      sink.emit(event);
      // The copied prefix is published first (beginInput); the parent's tokens follow it.
      if (isPending && partial && event.type === "segment" && event.index === pendingIndex - 1)
        sink.emit({ type: "segment", index: pendingIndex, segment: partialSegment(partial) });
    },
    askHuman: (...args) => sink.askHuman(...args),
    setSnapshot: (snapshot) => sink.setSnapshot(() => ({ ...withPending(snapshot()), lineage })),
  };
  const final = await runEpisode(
    { ...deps, client: continuingClient(deps.client, prefix) },
    request,
    branchSink,
    { ledger: ledgerFromFork(prefix), messages: prefix.messages, counts: prefix.counts },
  );
  return { ...withPending(final, final.endReason ?? final.status), lineage };
}

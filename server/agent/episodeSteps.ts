import { familyById } from "../../src/core/families/families";
import { TitoLedger } from "../../src/core/tito/ledger";
import {
  decideTurn,
  type IterationCounts,
  noIterations,
  type TurnDecision,
} from "../../src/core/tito/limiter";
import { initialPromptText, toolResultSuffixText } from "../../src/core/tito/prompts";
import type { ChatTemplateMessage, Tokenizer } from "../../src/core/tokenizer/types";
import { errorToolResult } from "../../src/core/toolcalls/errorResult";
import { getToolCallParser } from "../../src/core/toolcalls/registry";
import type { ToolCallParser } from "../../src/core/toolcalls/types";
import type { StreamDelta } from "../../src/core/trajectory/streamDelta";
import type {
  ChatMessage,
  GenerateCall,
  Segment,
  ToolCall,
  Trajectory,
  TrajectoryStatus,
} from "../../src/core/trajectory/types";
import type { StartEpisodeRequest } from "../../src/core/wire/episodes";
import { fitMaxNewTokens } from "../../src/core/wire/sglang";
import { OFF_THREAD_CHARS } from "../tokenizers/offThreadEncoder";
import { runTool, type ToolRegistry } from "../tools/registry";
import { type ToolDefinition, toToolSchema } from "../tools/types";
import { DeltaBatcher } from "./deltaBatcher";
import {
  COMPLETED_REASON,
  DEFAULT_EPISODE_TOOLS,
  DEFAULT_HUMAN_TIMEOUT_MS,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_SAMPLING,
  DEFAULT_TOOL_CALL_FORMAT,
  DEFAULT_TOP_LOGPROBS_NUM,
} from "./episodeDefaults";
import type { EpisodeSink } from "./episodeSink";
import { ContextOverflowError, type ModelClient, type ModelTurn } from "./modelClient";

/**
 * The steps one agent episode is made of (`runEpisode` is the loop over them). Each step reads and
 * appends to one `EpisodeRun`; a step that ends the episode returns an `Ending`, and only `finish`
 * turns an ending into the final trajectory.
 */

export interface RunnerDeps {
  readonly tokenizer: Tokenizer;
  readonly tokenizerName: string;
  readonly client: ModelClient;
  readonly registry: ToolRegistry;
  /** Tool-call format of the model (`hermes`, `qwen_xml`, `glm`). */
  readonly toolCallFormat?: string;
  readonly defaultMaxIterations?: number;
  /**
   * Encodes a long text with tokenizer `tokenizerName` off the event loop (server/tokenizers/
   * offThreadEncoder.ts); absent, every text is encoded in place.
   */
  readonly encodeOffThread?: (tokenizerName: string, text: string) => Promise<number[]>;
}

/** Token ids of a prompt or tool-result text: a long one off the event loop, else in place. */
async function encodeInput(deps: RunnerDeps, text: string): Promise<number[]> {
  if (deps.encodeOffThread && text.length >= OFF_THREAD_CHARS) {
    return deps.encodeOffThread(deps.tokenizerName, text);
  }
  return deps.tokenizer.encode(text);
}

/**
 * An existing token record to go on from (a branch of an episode), instead of a fresh prompt. The
 * run appends to this ledger: give it a copy when the original must stay as it is.
 */
export interface EpisodePrefix {
  /** Its last segment is the input the next turn answers (the prompt, or tool results). */
  readonly ledger: TitoLedger;
  readonly messages: readonly ChatMessage[];
  readonly counts?: IterationCounts;
}

/** Everything one episode carries from step to step. */
export interface EpisodeRun {
  readonly deps: RunnerDeps;
  readonly request: StartEpisodeRequest;
  readonly sink: EpisodeSink;
  readonly parser: ToolCallParser;
  readonly toolNames: readonly string[];
  readonly tools: readonly (ToolDefinition | undefined)[];
  readonly maxIterations: number;
  readonly samplingParams: Readonly<Record<string, unknown>>;
  /** Alternatives asked for per model token (0: none). */
  readonly topLogprobsNum: number;
  readonly ledger: TitoLedger;
  readonly messages: ChatMessage[];
  readonly metadata: Record<string, unknown>;
  readonly createdAt: string;
  counts: IterationCounts;
  /** Upstream that ran the latest turn: the next turn prefers it (its prefix cache is warm). */
  affinity?: string;
}

/** How the episode ends; `cutoff` marks the last segment with that reason first. */
export interface Ending {
  readonly status: TrajectoryStatus;
  readonly reason: string;
  readonly cutoff?: string;
}

/** One model turn as the ledger recorded it. */
export interface Turn {
  readonly model: ModelTurn;
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** The model segment, absent when the turn produced no tokens. */
  readonly segment?: Segment;
  /** Where the turn's tool calls and results are reported (the model segment's index). */
  readonly segmentIndex: number;
  readonly maxNewTokens: unknown;
}

export interface ToolResult {
  readonly call: ToolCall;
  readonly content: string;
  readonly isError: boolean;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why the episode's signal fired: the user, or the server shutting down. */
function abortEnding(signal: AbortSignal): Ending {
  return {
    status: "aborted",
    reason: signal.reason instanceof Error ? signal.reason.message : "aborted",
  };
}

const thinking = (request: StartEpisodeRequest) =>
  request.enable_thinking === undefined ? {} : { enableThinking: request.enable_thinking };

/** Settles the episode's settings, registers its snapshot and announces it (`started`). */
/** The tool-call format of the tokenizer's family (hermes when the family is unknown or has none). */
function familyToolCallFormat(tokenizer: Tokenizer): string {
  const family = tokenizer.family === undefined ? undefined : familyById(tokenizer.family);
  return family?.toolCalls?.parser ?? DEFAULT_TOOL_CALL_FORMAT;
}

export function openRun(
  deps: RunnerDeps,
  request: StartEpisodeRequest,
  sink: EpisodeSink,
  prefix?: EpisodePrefix,
): EpisodeRun {
  const toolNames = request.tools ?? DEFAULT_EPISODE_TOOLS;
  const maxIterations =
    request.max_iterations ?? deps.defaultMaxIterations ?? DEFAULT_MAX_ITERATIONS;
  const run: EpisodeRun = {
    deps,
    request,
    sink,
    parser: getToolCallParser(
      request.tool_call_parser ?? deps.toolCallFormat ?? familyToolCallFormat(deps.tokenizer),
    ),
    toolNames,
    tools: toolNames.map((name) => deps.registry.get(name)),
    maxIterations,
    samplingParams: {
      ...DEFAULT_SAMPLING,
      ...request.sampling_params,
      ...(request.policy ? { custom_params: { policy: request.policy } } : {}),
    },
    topLogprobsNum: request.top_logprobs_num ?? DEFAULT_TOP_LOGPROBS_NUM,
    ledger: prefix?.ledger ?? new TitoLedger(),
    messages: prefix ? prefix.messages.slice() : [],
    metadata: {
      upstream: deps.client.upstream,
      // The schemas, not only the names, so a template re-renders the prompt that was sent (the
      // per-turn prefix check); a name the registry lacks stays a name (the episode aborts).
      tools: toolNames.map((name) => {
        const tool = deps.registry.get(name);
        return tool ? toToolSchema(tool) : name;
      }),
      max_iterations: maxIterations,
      top_logprobs_num: request.top_logprobs_num ?? DEFAULT_TOP_LOGPROBS_NUM,
      ...(request.policy ? { policy: request.policy } : {}),
      // Only when asked for: the family's own parser is implied by the tokenizer.
      ...(request.tool_call_parser ? { tool_call_parser: request.tool_call_parser } : {}),
      // A branch templates edited tool results the same way (Qwen3's generation prompt).
      ...(request.enable_thinking === undefined
        ? {}
        : { enable_thinking: request.enable_thinking }),
    },
    createdAt: new Date().toISOString(),
    counts: prefix?.counts ?? noIterations,
  };
  sink.setSnapshot(() => snapshot(run, "running"));
  sink.emit({
    type: "started",
    id: sink.id,
    upstream: deps.client.upstream,
    model: deps.client.model,
  });
  return run;
}

/** The trajectory so far (segments and calls copied). */
export function snapshot(
  run: EpisodeRun,
  status: TrajectoryStatus,
  endReason?: string,
): Trajectory {
  return run.ledger.toTrajectory({
    id: run.sink.id,
    createdAt: run.createdAt,
    model: run.deps.client.model,
    tokenizer: run.deps.tokenizerName,
    samplingParams: run.samplingParams,
    status,
    ...(endReason === undefined ? {} : { endReason }),
    messages: run.messages.slice(),
    metadata: {
      ...run.metadata,
      tool_iterations: run.counts.toolIterations,
      tool_calls: run.counts.toolCalls,
      ...familyMetadata(run.deps.tokenizer),
    },
  });
}

/**
 * The tokenizer's family and the rules by which its template renders history differently from
 * generated ids (docs/templates.md): the ids above are kept as generated, never re-encoded.
 */
function familyMetadata(tokenizer: Tokenizer): Record<string, unknown> {
  const family = tokenizer.family === undefined ? undefined : familyById(tokenizer.family);
  if (!family) return {};
  return { family: family.id, family_rules: family.rules.map((r) => r.id) };
}

/**
 * An assistant message's content: the turn's text without the stop token that ended it, which the
 * template writes itself (so re-rendering the messages gives the ids the model saw), unless the
 * family's rendering parses it as part of the message (Harmony).
 */
function messageContent(tokenizer: Tokenizer, outputIds: readonly number[], text: string): string {
  const last = outputIds.at(-1);
  if (last === undefined || !tokenizer.eosTokenIds.includes(last)) return text;
  const family = tokenizer.family === undefined ? undefined : familyById(tokenizer.family);
  return family?.messageKeepsStop ? text : tokenizer.decode(outputIds.slice(0, -1));
}

/** Publishes the ledger's last segment; returns its index (-1 when there is none). */
function emitLastSegment(run: EpisodeRun): number {
  const index = run.ledger.lastSegmentIndex;
  const segment = run.ledger.segmentAt(index);
  if (segment) run.sink.emit({ type: "segment", index, segment });
  return index;
}

/**
 * The first input of the episode: the chat template over system, user and tool schemas. From a
 * prefix, its segments are published instead. Ends the episode when a requested tool is unknown.
 */
export async function beginInput(
  run: EpisodeRun,
  fromPrefix: boolean,
): Promise<Ending | undefined> {
  const missing = run.toolNames.filter((_, i) => !run.tools[i]);
  if (missing.length > 0)
    return { status: "aborted", reason: `unknown tool(s): ${missing.join(", ")}` };
  if (fromPrefix) {
    for (let index = 0; index < run.ledger.segmentCount; index++) {
      const segment = run.ledger.segmentAt(index);
      if (segment) run.sink.emit({ type: "segment", index, segment });
    }
    return undefined;
  }
  const { request } = run;
  if (request.system !== undefined) run.messages.push({ role: "system", content: request.system });
  run.messages.push({ role: "user", content: request.prompt });
  const text = initialPromptText(run.deps.tokenizer, {
    ...(request.system !== undefined ? { system: request.system } : {}),
    user: request.prompt,
    tools: run.tools.flatMap((t) => (t ? [toToolSchema(t)] : [])),
    ...thinking(request),
  });
  run.ledger.appendPrompt({ tokenIds: await encodeInput(run.deps, text), text });
  emitLastSegment(run);
  return undefined;
}

/** Asks the model for the next turn (within the context window) and records it in the ledger. */
export async function generateTurn(run: EpisodeRun): Promise<Turn | Ending> {
  const { sink, ledger, samplingParams, deps } = run;
  if (sink.signal.aborted) return abortEnding(sink.signal);
  const inputIds = ledger.inputIds();
  const { contextLength } = deps.client;
  const wanted = Number(samplingParams.max_new_tokens ?? DEFAULT_SAMPLING.max_new_tokens);
  // One token of slack: older servers reject prompt + max_new_tokens equal to the window (docs/sglang.md).
  const fitted =
    contextLength === undefined ? wanted : fitMaxNewTokens(contextLength, inputIds.length, wanted);
  if (fitted <= 0 && wanted > 0) {
    const reason = `context window full (${inputIds.length} of ${contextLength} tokens)`;
    return { status: "aborted", reason };
  }
  const turnParams =
    fitted < wanted ? { ...samplingParams, max_new_tokens: fitted } : samplingParams;
  const turnNumber = run.counts.toolIterations + 1;
  // Each event carries only what its steps added (replay memory stays linear in tokens), gathered
  // per window so a token is not an event of its own.
  const deltas = run.request.stream
    ? new DeltaBatcher((delta) => sink.emit({ type: "delta", turn: turnNumber, ...delta }))
    : undefined;
  let turn: ModelTurn;
  try {
    turn = await deps.client.generate({
      inputIds,
      samplingParams: turnParams,
      topLogprobsNum: run.topLogprobsNum,
      signal: sink.signal,
      ...(run.affinity === undefined ? {} : { preferredUpstream: run.affinity }),
      ...(deltas ? { onDelta: (delta: StreamDelta) => deltas.add(delta) } : {}),
    });
  } finally {
    deltas?.flush();
  }
  if (turn.upstream !== undefined) run.affinity = turn.upstream;
  const text = deps.tokenizer.decode(turn.outputIds);
  const toolCalls = turn.finishReason.type === "abort" ? [] : run.parser.parse(text);
  const call: GenerateCall = {
    rid: turn.rid,
    inputLen: inputIds.length,
    outputLen: turn.outputIds.length,
    finishReason: turn.finishReason,
    ...(turn.cachedTokens === undefined ? {} : { cachedTokens: turn.cachedTokens }),
    ...(turn.e2eLatency === undefined ? {} : { e2eLatency: turn.e2eLatency }),
    ...(turn.weightVersion === undefined ? {} : { weightVersion: turn.weightVersion }),
    ...(turn.upstream === undefined ? {} : { upstream: turn.upstream }),
    ...(turn.retries === undefined ? {} : { retries: turn.retries }),
  };
  const segment = ledger.appendModel({
    outputIds: turn.outputIds,
    logprobs: turn.logprobs,
    ...(turn.topLogprobs ? { topLogprobs: turn.topLogprobs } : {}),
    ...(turn.keptIds ? { keptTokenIds: turn.keptIds } : {}),
    text,
    finishReason: turn.finishReason,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    call,
  });
  run.messages.push({
    role: "assistant",
    content: messageContent(deps.tokenizer, turn.outputIds, text),
  });
  const segmentIndex = segment ? emitLastSegment(run) : ledger.lastSegmentIndex;
  sink.emit({ type: "call", call });
  return {
    model: turn,
    text,
    toolCalls,
    segmentIndex,
    maxNewTokens: turnParams.max_new_tokens,
    ...(segment ? { segment } : {}),
  };
}

/** Ends the episode after a turn the upstream aborted, that hit its length, or that answered. */
export function endAfterTurn(run: EpisodeRun, turn: Turn): Ending | undefined {
  const finish = turn.model.finishReason;
  if (finish.type === "abort") {
    const detail = finish.message ? `: ${finish.message}` : "";
    return { status: "aborted", reason: `upstream aborted the request${detail}`, cutoff: "abort" };
  }
  for (const call of turn.toolCalls)
    run.sink.emit({ type: "tool_call", segmentIndex: turn.segmentIndex, call });
  if (finish.type === "length") {
    const reason = `max_new_tokens (${String(turn.maxNewTokens)}) reached`;
    return { status: "truncated", reason, cutoff: "length" };
  }
  if (turn.toolCalls.length === 0) return { status: "completed", reason: COMPLETED_REASON };
  return undefined;
}

/** Runs the turn's tool calls in order (only the episode's own tools) and attaches the results. */
export async function runToolCalls(run: EpisodeRun, turn: Turn): Promise<ToolResult[]> {
  const { sink } = run;
  const { registry } = run.deps;
  const results: ToolResult[] = [];
  for (const call of turn.toolCalls) {
    const outcome = call.error
      ? { content: errorToolResult(call), isError: true }
      : !run.toolNames.includes(call.name)
        ? {
            // Only the episode's own tools run, whatever else the server knows.
            content: `Error: tool "${call.name}" is not available. Available tools: ${run.toolNames.join(", ")}.`,
            isError: true,
          }
        : await runTool(registry, call.name, call.arguments, {
            episodeId: sink.id,
            signal: sink.signal,
            mockReplies: run.request.mock_replies ?? {},
            askHuman: (question, signal) =>
              sink.askHuman(
                call.id,
                question,
                registry.get(call.name)?.timeoutMs ?? DEFAULT_HUMAN_TIMEOUT_MS,
                signal,
              ),
          });
    results.push({ call, ...outcome });
    sink.emit({
      type: "tool_result",
      segmentIndex: turn.segmentIndex,
      callId: call.id,
      name: call.name,
      ...outcome,
    });
  }
  if (turn.segment) {
    run.ledger.annotate(turn.segmentIndex, {
      toolCalls: turn.toolCalls.map((call, i) => ({
        ...call,
        result: results[i]?.content ?? "",
        resultIsError: results[i]?.isError ?? true,
      })),
    });
  }
  return results;
}

/** Counts the turn's tool iteration (before its tools run, so a snapshot meanwhile shows it). */
export function countIteration(run: EpisodeRun, turn: Turn): TurnDecision {
  const limits = { maxToolIterations: run.maxIterations };
  const decision = decideTurn(limits, run.counts, turn.toolCalls.length);
  run.counts = decision.counts;
  return decision;
}

/**
 * After the tools ran: ends the episode when it was aborted meanwhile or the limiter cut it off
 * (the results are then kept in metadata, never tokenized).
 */
export function decideCutoff(
  run: EpisodeRun,
  decision: TurnDecision,
  results: readonly ToolResult[],
): Ending | undefined {
  if (run.sink.signal.aborted) return abortEnding(run.sink.signal);
  if (!decision.cutoff) return undefined;
  run.metadata.untokenized_tool_results = results.map((r) => ({
    call_id: r.call.id,
    name: r.call.name,
    content: r.content,
    is_error: r.isError,
  }));
  const { message } = decision.cutoff;
  return { status: "truncated", reason: message, cutoff: message };
}

/** Appends the tool results, rendered by the chat template up to the next generation prompt. */
export async function appendToolResults(
  run: EpisodeRun,
  results: readonly ToolResult[],
): Promise<void> {
  // `name` too: Harmony writes a result as `functions.NAME`; other templates ignore it.
  const toolMessages: ChatTemplateMessage[] = results.map((r) => ({
    role: "tool",
    content: r.content,
    tool_call_id: r.call.id,
    name: r.call.name,
  }));
  run.messages.push(...toolMessages.map((m) => ({ ...m })));
  const text = toolResultSuffixText(run.deps.tokenizer, toolMessages, thinking(run.request));
  run.ledger.appendTool({ tokenIds: await encodeInput(run.deps, text), text });
  emitLastSegment(run);
}

/** How a step that threw ends the episode: the abort, a full context, or an upstream failure. */
export function failureEnding(run: EpisodeRun, error: unknown): Ending {
  if (run.sink.signal.aborted) return abortEnding(run.sink.signal);
  const prefix = error instanceof ContextOverflowError ? "context overflow" : "upstream failure";
  return { status: "aborted", reason: `${prefix}: ${errorMessage(error)}` };
}

/** Marks the cutoff (when the ending has one), publishes `end` and returns the final trajectory. */
export function finish(run: EpisodeRun, ending: Ending): Trajectory {
  if (ending.cutoff !== undefined) {
    const index = run.ledger.lastSegmentIndex;
    if (index >= 0) {
      run.ledger.annotate(index, { cutoff: true, cutoffReason: ending.cutoff });
      run.sink.emit({ type: "cutoff", segmentIndex: index, reason: ending.cutoff });
    }
  }
  run.sink.emit({ type: "end", status: ending.status, reason: ending.reason });
  return snapshot(run, ending.status, ending.reason);
}

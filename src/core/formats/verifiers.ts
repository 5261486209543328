import { isRecord } from "../isRecord";
import type { ChatMessage, Trajectory, TrajectoryStatus } from "../trajectory/types";
import { isLogprobArray, isTokenIdArray } from "./fastArrays";
import type { FieldError, FormatAdapter, ReadContext, ReadResult } from "./types";
import {
  type BuiltBranch,
  buildBranch,
  leavesOf,
  parentProblem,
  pathTo,
  type VCall,
  type VNode,
} from "./verifiersBranch";

/*
 * verifiers v1 Episode records (docs/format.md "verifiers / prime-rl traces"): prime-rl's
 * FileMonitor appends `Episode.to_record()` to
 * `{output_dir}/rollouts/step_{N}/{train|eval}/{all|effective}/traces.jsonl`, one episode a line:
 * `traces`, each a message graph of `nodes` (a node adds its `token_ids` delta to its parent's
 * sequence) and the model `calls` that committed its sampled nodes. Every root→leaf path of every
 * trace is one trajectory (one training sample), its path kept as `metadata.recorded_tree`. A bare
 * `Trace.to_record()` line reads the same, as an episode of one trace.
 */

/** Metadata key of the recorded tree a trajectory was cut from (root first, token ranges). */
export const RECORDED_TREE = "recorded_tree";

/** Stop conditions verifiers counts as truncation (`Trace.is_truncated`). */
const TRUNCATING = new Set([
  "max_turns",
  "max_input_tokens",
  "max_output_tokens",
  "max_total_tokens",
  "context_length",
]);

type Rec = Readonly<Record<string, unknown>>;

function fail(field: string, message: string): { ok: false; error: FieldError } {
  return { ok: false, error: { field, message } };
}

function isBoolArray(value: unknown): value is (boolean | 0 | 1)[] {
  return Array.isArray(value) && value.every((v) => typeof v === "boolean" || v === 0 || v === 1);
}

/**
 * A per-sampled-token array: absent/null is undefined; else numbers, one per True mask entry.
 * A null entry is a value verifiers held as NaN or ±inf: prime-rl writes records with orjson,
 * which writes those as null, so it reads as "no value" there.
 */
function sampledValues(node: Rec, key: string, sampled: number, at: string) {
  const value = node[key];
  if (value === undefined || value === null) return { values: undefined };
  if (!isLogprobArray(value)) {
    return { error: { field: `${at}.${key}`, message: "expected a list of numbers" } };
  }
  if (value.length !== sampled && !(key === "logprobs" && value.length === 0)) {
    return {
      error: {
        field: `${at}.${key}`,
        message: `${value.length} values for the node's ${sampled} sampled tokens (mask True): expected one per sampled token`,
      },
    };
  }
  return { values: value as (number | null)[] };
}

/**
 * A node's `kept_tokens` (verifiers' KeptTokens: `ids` flat in position order, `counts` per
 * sampled token, 0 = no kept set) when written as plain lists; the raw-bytes `__nd__` form
 * verifiers puts on the wire (prime-rl keeps it off disk) is not read.
 */
function keptOf(node: Rec, sampled: number, at: string) {
  const value = node.kept_tokens;
  if (!isRecord(value) || !Array.isArray(value.ids) || !Array.isArray(value.counts)) return {};
  const field = `${at}.kept_tokens`;
  const { ids, counts } = value;
  if (!isTokenIdArray(ids) || !isTokenIdArray(counts)) {
    return { error: { field, message: "expected ids and counts as lists of integers >= 0" } };
  }
  if (counts.length !== sampled) {
    return {
      error: {
        field,
        message: `${counts.length} counts for the node's ${sampled} sampled tokens (mask True)`,
      },
    };
  }
  const total = counts.reduce((a, b) => a + b, 0);
  if (total !== ids.length) {
    return {
      error: { field, message: `counts add up to ${total}, but there are ${ids.length} ids` },
    };
  }
  return { kept: { ids, counts } };
}

/**
 * A node's `loss_weights` (named weight streams a trainer stamps, prime-rl's echo `ce` on tool
 * and user bodies), each one value per `token_ids` entry, as prime-rl's `_loss_weights` requires.
 */
function lossWeightsOf(node: Rec, n: number, at: string) {
  const value = node.loss_weights;
  if (value === undefined || value === null) return {};
  if (!isRecord(value))
    return {
      error: { field: `${at}.loss_weights`, message: "expected an object of weight lists" },
    };
  const streams: Record<string, number[]> = {};
  for (const [name, weights] of Object.entries(value)) {
    const field = `${at}.loss_weights.${name}`;
    if (!Array.isArray(weights) || !weights.every((w) => typeof w === "number")) {
      return { error: { field, message: "expected a list of numbers" } };
    }
    if (weights.length !== n) {
      return { error: { field, message: `${weights.length} weights for ${n} token_ids` } };
    }
    streams[name] = weights;
  }
  return { streams };
}

/** Node keys read into the trajectory; the others (`timestamp`, `is_content`, ...) are kept verbatim. */
const NODE_READ = new Set([
  "parent",
  "message",
  "sampled",
  "token_ids",
  "mask",
  "logprobs",
  "advantages",
  "reference_logprobs",
  "kept_tokens",
  "loss_weights",
]);

/** One `MessageNode` checked: delta ids, a mask as long, values over its sampled tokens. */
function readNode(raw: unknown, at: string): VNode | FieldError {
  if (!isRecord(raw)) return { field: at, message: "expected a node object" };
  const parent = raw.parent ?? null;
  if (parent !== null && !Number.isInteger(parent)) {
    return { field: `${at}.parent`, message: "expected a node index or null" };
  }
  const ids = raw.token_ids ?? [];
  if (!isTokenIdArray(ids))
    return { field: `${at}.token_ids`, message: "expected token ids (integers >= 0)" };
  const mask = raw.mask ?? [];
  if (!isBoolArray(mask)) return { field: `${at}.mask`, message: "expected a list of booleans" };
  if (mask.length !== ids.length) {
    return { field: `${at}.mask`, message: `${mask.length} entries for ${ids.length} token_ids` };
  }
  const flags = mask.map((m) => m === true || m === 1);
  const sampled = flags.filter(Boolean).length;
  const lp = sampledValues(raw, "logprobs", sampled, at);
  const adv = sampledValues(raw, "advantages", sampled, at);
  const ref = sampledValues(raw, "reference_logprobs", sampled, at);
  const kept = keptOf(raw, sampled, at);
  const weights = lossWeightsOf(raw, ids.length, at);
  const error = lp.error ?? adv.error ?? ref.error ?? kept.error ?? weights.error;
  if (error) return error;
  return {
    parent: parent as number | null,
    sampled: raw.sampled === true,
    tokenIds: ids,
    mask: flags,
    logprobs: lp.values ?? [],
    advantages: adv.values,
    reference: ref.values,
    kept: kept.kept,
    lossWeights: weights.streams,
    other: Object.fromEntries(Object.entries(raw).filter(([k]) => !NODE_READ.has(k))),
    message: isRecord(raw.message) ? raw.message : {},
  };
}

function readCall(raw: unknown, index: number): VCall {
  const call = isRecord(raw) ? raw : {};
  const usage = isRecord(call.usage) ? call.usage : {};
  const int = (v: unknown) => (Number.isInteger(v) ? (v as number) : undefined);
  return {
    index,
    node: int(call.node),
    finishReason: typeof call.finish_reason === "string" ? call.finish_reason : undefined,
    completionTokens: int(usage.completion_tokens),
    cachedTokens: int(usage.cached_input_tokens),
    failed: isRecord(call.error),
  };
}

/** A message's text: a string, or the text parts of a content-part list. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("");
}

function chatMessage(message: Rec): ChatMessage {
  return {
    ...message,
    role: typeof message.role === "string" ? message.role : "unknown",
    content: contentText(message.content),
  };
}

/** Σ score × weight over the scored rewards; null when none was scored, undefined when none. */
function rewardOf(rewards: unknown): number | null | undefined {
  if (!isRecord(rewards) || Object.keys(rewards).length === 0) return undefined;
  let sum: number | null = null;
  for (const r of Object.values(rewards)) {
    if (!isRecord(r) || typeof r.score !== "number") continue;
    const weight = typeof r.weight === "number" ? r.weight : 1;
    sum = (sum ?? 0) + r.score * weight;
  }
  return sum;
}

function statusOf(trace: Rec, calls: readonly VCall[]): TrajectoryStatus {
  const errors = Array.isArray(trace.errors) ? trace.errors.length : 0;
  if (trace.stop_condition === "error" || errors > 0) return "aborted";
  if (typeof trace.stop_condition === "string" && TRUNCATING.has(trace.stop_condition)) {
    return "truncated";
  }
  const last = [...calls].reverse().find((c) => !c.failed);
  return last?.finishReason === "length" ? "truncated" : "completed";
}

/** What every trajectory of the episode shares: its provenance, group, run step and policy. */
/** Episode and trace keys read into the trajectory; every other key is kept verbatim. */
const EPISODE_READ = new Set(["traces", "id", "env", "group", "ok", "errors"]);
const TRACE_READ = new Set([
  "id",
  "agent",
  "task",
  "ok",
  "errors",
  "metrics",
  "info",
  "rewards",
  "nodes",
]);

/** `{[key]: the record's keys outside `read`}`, or nothing when there are none. */
function others(record: Rec, read: ReadonlySet<string>, key: string): Rec {
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !read.has(k)));
  return Object.keys(rest).length > 0 ? { [key]: rest } : {};
}

/** `node_other`: the path's nodes' unread keys by node index, or nothing when there are none. */
function nodeOthers(nodes: readonly VNode[], path: readonly number[]): Rec {
  const entries = path.flatMap((i) => {
    const other = nodes[i]?.other ?? {};
    return Object.keys(other).length > 0 ? [[String(i), other] as const] : [];
  });
  return entries.length > 0 ? { node_other: Object.fromEntries(entries) } : {};
}

function episodeFacts(episode: Rec) {
  const run = isRecord(episode.run) ? episode.run : undefined;
  const work = run && isRecord(run.work) ? run.work : undefined;
  const group = isRecord(episode.group) && typeof episode.group.id === "string";
  return {
    group: group ? ((episode.group as Rec).id as string) : undefined,
    meta: {
      episode: episode.id,
      env: episode.env,
      run: run ? { type: run.type, id: run.id, name: run.name } : undefined,
      ...(work ? { work: work.type, step: work.step, policy_span: work.policy } : {}),
      episode_ok: episode.ok,
      episode_errors: episode.errors,
      ...others(episode, EPISODE_READ, "episode_other"),
    },
  };
}

interface TraceInput {
  readonly trace: Rec;
  readonly nodes: readonly VNode[];
  readonly calls: readonly VCall[];
  readonly prefix: string;
}

function readTrace(trace: Rec, prefix: string): TraceInput | FieldError {
  const rawNodes = trace.nodes ?? [];
  if (!Array.isArray(rawNodes))
    return { field: `${prefix}nodes`, message: "expected a list of nodes" };
  const nodes: VNode[] = [];
  for (const [i, raw] of rawNodes.entries()) {
    const node = readNode(raw, `${prefix}nodes[${i}]`);
    if (!("tokenIds" in node)) return node;
    nodes.push(node);
  }
  const problem = parentProblem(nodes, prefix);
  if (problem) return problem;
  const rawCalls = Array.isArray(trace.calls) ? trace.calls : [];
  return { trace, nodes, calls: rawCalls.map(readCall), prefix };
}

function branchTrajectory(
  input: TraceInput,
  built: BuiltBranch | undefined,
  branch: { index: number; of: number; path: readonly number[] },
  shared: ReturnType<typeof episodeFacts> & { context: ReadContext; row: number },
): Trajectory {
  const { trace, nodes, calls } = input;
  const traceId = typeof trace.id === "string" ? trace.id : `trace${shared.row}`;
  const agent = isRecord(trace.agent) ? trace.agent : {};
  const firstCall = isRecord((trace.calls as unknown[] | undefined)?.[0])
    ? ((trace.calls as unknown[])[0] as Rec)
    : {};
  const lanes = built?.reference ? { reference: built.reference } : undefined;
  return {
    id: `${traceId}.b${branch.index}`,
    source: { kind: "file", path: shared.context.path, line: shared.context.line, row: shared.row },
    format: "verifiers",
    ...(typeof firstCall.model === "string" ? { model: firstCall.model } : {}),
    ...(isRecord(firstCall.sampling) ? { samplingParams: firstCall.sampling } : {}),
    status: statusOf(trace, calls),
    ...(typeof trace.stop_condition === "string" ? { endReason: trace.stop_condition } : {}),
    reward: rewardOf(trace.rewards),
    segments: built?.segments ?? [],
    ...(built && built.calls.length > 0 ? { calls: built.calls } : {}),
    messages: branch.path.map((i) => chatMessage((nodes[i] as VNode).message)),
    group: shared.group,
    ...(lanes ? { logprobLanes: lanes } : {}),
    metadata: {
      ...(built ? { [RECORDED_TREE]: { tree: traceId, path: built.path } } : {}),
      verifiers: {
        ...shared.meta,
        trace: traceId,
        branch: branch.index,
        branches: branch.of,
        agent: agent.name,
        trainable: agent.trainable,
        task: trace.task,
        ok: trace.ok,
        errors: trace.errors,
        metrics: trace.metrics,
        info: trace.info,
        ...others(trace, TRACE_READ, "trace_other"),
        ...nodeOthers(nodes, branch.path),
      },
      rewards: trace.rewards,
      ...(built?.advantages ? { advantages: built.advantages } : {}),
      ...(built?.keptTokens ? { kept_tokens: built.keptTokens } : {}),
      ...(built?.lossWeights ? { loss_weights: built.lossWeights } : {}),
    },
  };
}

/** Reads one Episode record (or a bare Trace record) into one trajectory per branch. */
export function readVerifiers(value: Rec, context: ReadContext): ReadResult {
  const isEpisode = Array.isArray(value.traces);
  const traces: unknown[] = isEpisode ? (value.traces as unknown[]) : [value];
  const shared = episodeFacts(isEpisode ? value : {});
  const out: Trajectory[] = [];
  for (const [t, raw] of traces.entries()) {
    const prefix = isEpisode ? `traces[${t}].` : "";
    if (!isRecord(raw)) return fail(`traces[${t}]`, "expected a trace object");
    const input = readTrace(raw, prefix);
    if (!("nodes" in input)) return { ok: false, error: input };
    const callsByNode = new Map(
      input.calls.filter((c) => c.node !== undefined).map((c) => [c.node as number, c]),
    );
    const leaves = leavesOf(input.nodes);
    for (const [b, leaf] of leaves.entries()) {
      const path = pathTo(input.nodes, leaf);
      const built = buildBranch(input.nodes, path, callsByNode);
      const branch = { index: b, of: leaves.length, path };
      out.push(branchTrajectory(input, built, branch, { ...shared, context, row: out.length }));
    }
    // A trace with no nodes (it failed before its first turn) still shows, as text.
    if (leaves.length === 0) {
      const branch = { index: 0, of: 0, path: [] };
      out.push(branchTrajectory(input, undefined, branch, { ...shared, context, row: out.length }));
    }
  }
  if (out.length === 0) {
    // An episode-level failure with no trace: kept so the failure is seen, as text.
    const input: TraceInput = { trace: { errors: value.errors }, nodes: [], calls: [], prefix: "" };
    const branch = { index: 0, of: 0, path: [] };
    out.push(branchTrajectory(input, undefined, branch, { ...shared, context, row: 0 }));
  }
  return { ok: true, trajectories: out };
}

export const verifiersAdapter: FormatAdapter = {
  id: "verifiers",
  detect: (v) =>
    (Array.isArray(v.traces) && isRecord(v.task) && "ok" in v) ||
    (Array.isArray(v.nodes) && Array.isArray(v.calls) && isRecord(v.agent)),
  read: readVerifiers,
};

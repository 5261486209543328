import { turnsOf } from "../trajectory/flatten";
import type { FinishReason, GenerateCall, Segment, SegmentKind } from "../trajectory/types";
import type { FieldError } from "./types";

/*
 * One root→leaf path of a verifiers v1 trace (docs/format.md "verifiers / prime-rl traces") cut
 * into segments. Each `MessageNode` holds only the tokens it adds (`token_ids`, its delta), a
 * `mask` (True on the model-sampled tokens), and `logprobs` / `advantages` /
 * `reference_logprobs` over its sampled tokens only. Kinds come from who produced the tokens:
 * a sampled node's completion is model output (a run of mask 0 inside it is a model segment that
 * is not trained), its leading generation-prompt scaffold and every input node are template or
 * environment tokens (the prompt before the first model turn, tool after).
 */

/** A node as read from the record, checked. */
export interface VNode {
  readonly parent: number | null;
  readonly sampled: boolean;
  readonly tokenIds: readonly number[];
  readonly mask: readonly boolean[];
  readonly logprobs: readonly (number | null)[];
  readonly advantages: readonly (number | null)[] | undefined;
  readonly reference: readonly (number | null)[] | undefined;
  /** `kept_tokens`: kept ids flat, a count per sampled token (0 = none). */
  readonly kept:
    | { readonly ids: readonly number[]; readonly counts: readonly number[] }
    | undefined;
  /** `loss_weights`: named weight streams, one value per `token_ids` entry. */
  readonly lossWeights: Readonly<Record<string, readonly number[]>> | undefined;
  /** The node's keys the reader does not model (`timestamp`, `is_content`, ...), verbatim. */
  readonly other: Readonly<Record<string, unknown>>;
  readonly message: Readonly<Record<string, unknown>>;
}

/** A model call as read from the record (`ModelCall`): the node it committed and its outcome. */
export interface VCall {
  readonly index: number;
  readonly node: number | undefined;
  readonly finishReason: string | undefined;
  readonly completionTokens: number | undefined;
  readonly cachedTokens: number | undefined;
  readonly failed: boolean;
}

/** One node of the path in the branch's own token space (`metadata.recorded_tree.path`). */
export interface PathEntry {
  readonly id: string;
  readonly parent: string | null;
  readonly start: number;
  readonly end: number;
}

export interface BuiltBranch {
  readonly segments: Segment[];
  readonly calls: GenerateCall[];
  readonly path: PathEntry[];
  /** Per token: the node's advantage on its sampled tokens, null elsewhere; undefined: none. */
  readonly advantages: (number | null)[] | undefined;
  /** Per token: the reference model's logprob on sampled tokens; undefined: no node scored. */
  readonly reference: (number | null)[] | undefined;
  /** The path's kept sets as `Trace.kept_tokens` has them: a count per token; undefined: none. */
  readonly keptTokens: { ids: number[]; counts: number[] } | undefined;
  /** Per stream name, per token: the node's weight, null on nodes without that stream. */
  readonly lossWeights: Record<string, (number | null)[]> | undefined;
}

interface Piece {
  kind: SegmentKind;
  trained: boolean;
  ids: number[];
  logprobs: (number | null)[];
  node: number;
}

/** The verifiers finish reason as ours (`tool_calls` stops the turn to run tools: a stop). */
export function finishReasonOf(reason: string | undefined): FinishReason | undefined {
  if (reason === "length") return { type: "length" };
  if (reason === "stop" || reason === "tool_calls") return { type: "stop" };
  return undefined;
}

/** Root-first node indices from `leaf` up its parents. */
export function pathTo(nodes: readonly VNode[], leaf: number): number[] {
  const path: number[] = [];
  for (let n: number | null = leaf; n !== null; n = nodes[n]?.parent ?? null) path.push(n);
  return path.reverse();
}

/** Node indices that are no node's parent: one per branch (verifiers `graph.leaves`). */
export function leavesOf(nodes: readonly VNode[]): number[] {
  const hasChild = new Set(nodes.map((n) => n.parent).filter((p) => p !== null));
  return nodes.flatMap((_, i) => (hasChild.has(i) ? [] : [i]));
}

/** Where a sampled node's completion starts: its first mask-True token, else by usage. */
function completionStart(node: VNode, call: VCall | undefined): number {
  const first = node.mask.indexOf(true);
  if (first >= 0) return first;
  const n = node.tokenIds.length;
  const produced = call?.completionTokens;
  return produced !== undefined && produced <= n ? n - produced : 0;
}

/** The node's tokens as pieces: input tokens, then (sampled) runs of equal mask. */
function piecesOf(node: VNode, index: number, call: VCall | undefined, seenModel: boolean) {
  const input: SegmentKind = seenModel ? "tool" : "prompt";
  const n = node.tokenIds.length;
  const start = node.sampled ? completionStart(node, call) : n;
  const out: Piece[] = [];
  if (start > 0) {
    const ids = node.tokenIds.slice(0, start);
    out.push({ kind: input, trained: false, ids, logprobs: ids.map(() => null), node: index });
  }
  let li = node.mask.slice(0, start).filter(Boolean).length;
  for (let k = start; k < n; ) {
    const trained = node.mask[k] === true;
    const piece: Piece = { kind: "model", trained, ids: [], logprobs: [], node: index };
    for (; k < n && (node.mask[k] === true) === trained; k++) {
      piece.ids.push(node.tokenIds[k] as number);
      piece.logprobs.push(trained ? (node.logprobs[li++] ?? null) : null);
    }
    out.push(piece);
  }
  return out;
}

/** Values over a node's sampled tokens spread onto its tokens, null elsewhere. */
function spread(node: VNode, values: readonly (number | null)[] | undefined): (number | null)[] {
  let li = 0;
  return node.mask.map((m) => (m && values ? (values[li++] ?? null) : null));
}

/** Joins adjacent pieces of one input kind (a tool result and the next generation prompt). */
function merged(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out.at(-1);
    if (last && last.kind !== "model" && p.kind === last.kind) {
      last.ids.push(...p.ids);
      last.logprobs.push(...p.logprobs);
    } else out.push({ ...p, ids: p.ids.slice(), logprobs: p.logprobs.slice() });
  }
  return out;
}

/** The path's `loss_weights` streams laid over its tokens (null on a node without the stream). */
function pathLossWeights(
  nodes: readonly VNode[],
  path: readonly number[],
): Record<string, (number | null)[]> | undefined {
  const names = new Set(path.flatMap((i) => Object.keys(nodes[i]?.lossWeights ?? {})));
  if (names.size === 0) return undefined;
  const out: Record<string, (number | null)[]> = {};
  for (const name of names) {
    out[name] = path.flatMap((i): readonly (number | null)[] => {
      const node = nodes[i] as VNode;
      return node.lossWeights?.[name] ?? node.tokenIds.map(() => null);
    });
  }
  return out;
}

/** The path's segments, calls, recorded-tree entries and per-token lanes. */
export function buildBranch(
  nodes: readonly VNode[],
  path: readonly number[],
  callsByNode: ReadonlyMap<number, VCall>,
): BuiltBranch {
  const pieces: Piece[] = [];
  const entries: PathEntry[] = [];
  const advantages: (number | null)[] = [];
  const reference: (number | null)[] = [];
  const keptIds: number[] = [];
  const keptCounts: number[] = [];
  let offset = 0;
  let seenModel = false;
  for (const i of path) {
    const node = nodes[i] as VNode;
    const own = piecesOf(node, i, callsByNode.get(i), seenModel);
    if (own.some((p) => p.kind === "model")) seenModel = true;
    pieces.push(...own);
    const end = offset + node.tokenIds.length;
    entries.push({
      id: String(i),
      parent: node.parent === null ? null : String(node.parent),
      start: offset,
      end,
    });
    offset = end;
    advantages.push(...spread(node, node.advantages));
    reference.push(...spread(node, node.reference));
    keptIds.push(...(node.kept?.ids ?? []));
    keptCounts.push(...spread(node, node.kept?.counts).map((c) => c ?? 0));
  }
  const cut = merged(pieces.filter((p) => p.ids.length > 0));
  const turns = turnsOf(cut.map((p) => p.kind));
  const segments: Segment[] = [];
  const calls: GenerateCall[] = [];
  let at = 0;
  cut.forEach((p, k) => {
    const call = p.kind === "model" ? callsByNode.get(p.node) : undefined;
    const first = call !== undefined && !calls.some((c) => c.rid === ridOf(call));
    const finishReason = first ? finishReasonOf(call.finishReason) : undefined;
    segments.push({
      kind: p.kind,
      turn: turns[k] ?? 0,
      tokenIds: p.ids,
      lossMask: p.ids.map(() => (p.trained ? 1 : 0)),
      logprobs: p.logprobs,
      ...(finishReason ? { finishReason } : {}),
    });
    if (first) calls.push(generateCall(call, at, p.ids.length));
    at += p.ids.length;
  });
  const anyAdvantage = path.some((i) => nodes[i]?.advantages !== undefined);
  const anyReference = path.some((i) => nodes[i]?.reference !== undefined);
  const anyKept = path.some((i) => nodes[i]?.kept !== undefined);
  return {
    segments,
    calls,
    path: entries,
    advantages: anyAdvantage ? advantages : undefined,
    reference: anyReference ? reference : undefined,
    keptTokens: anyKept ? { ids: keptIds, counts: keptCounts } : undefined,
    lossWeights: pathLossWeights(nodes, path),
  };
}

function ridOf(call: VCall): string {
  return `call${call.index}`;
}

function generateCall(call: VCall, inputLen: number, outputLen: number): GenerateCall {
  return {
    rid: ridOf(call),
    inputLen,
    outputLen,
    finishReason: finishReasonOf(call.finishReason) ?? null,
    ...(call.cachedTokens === undefined ? {} : { cachedTokens: call.cachedTokens }),
  };
}

/** The first node whose parent is not an earlier node, as a field error (cycles impossible). */
export function parentProblem(nodes: readonly VNode[], prefix: string): FieldError | undefined {
  for (const [i, node] of nodes.entries()) {
    if (node.parent !== null && !(node.parent >= 0 && node.parent < i)) {
      return {
        field: `${prefix}nodes[${i}].parent`,
        message: `parent ${node.parent} is not an earlier node (0..${i - 1})`,
      };
    }
  }
  return undefined;
}

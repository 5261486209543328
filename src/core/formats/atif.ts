import { z } from "zod";
import { isRecord } from "../isRecord";
import { turnsOf } from "../trajectory/flatten";
import type { ChatMessage, Segment, SegmentKind, ToolCall, Trajectory } from "../trajectory/types";
import { isLogprobArray, isTokenIdArray } from "./fastArrays";
import { nulls } from "./maskSegments";
import type { FieldError, FormatAdapter, ReadContext, ReadResult } from "./types";
import { zodFieldError } from "./wireSchemas";

/*
 * ATIF, the Agent Trajectory Interchange Format (Harbor RFC 0001, docs/format.md "ATIF"). One
 * document holds the steps of one agent run; from v1.3 an agent step's `metrics` may carry the
 * token ids it generated (`completion_token_ids`) and their `logprobs`, from v1.4 the ids of the
 * prompt it was sent (`prompt_token_ids`, history included). The token sequence is rebuilt from
 * those: the first prompt, then each completion, with the tokens a later prompt adds after the
 * previous completion (tool results, user turns) as a tool segment between them.
 */

/** `schema_version` prefix of every ATIF document. */
export const ATIF_VERSION_PREFIX = "ATIF-v";
/** The version our writer emits (embedded subagents and `trajectory_id` need v1.7). */
export const ATIF_WRITE_VERSION = "ATIF-v1.7";

/** Metadata keys this reader adds (and the writer removes before writing back). */
export const ATIF_META = "atif";
export const ATIF_LINKS = "atif_links";

const idsOrNull = z.custom<number[]>(isTokenIdArray, "expected an array of non-negative integers");
const logprobsOrNull = z.custom<(number | null)[]>(isLogprobArray, "expected an array of numbers");

const metricsSchema = z.looseObject({
  prompt_token_ids: idsOrNull.nullish(),
  completion_token_ids: idsOrNull.nullish(),
  logprobs: logprobsOrNull.nullish(),
});

const subagentRefSchema = z.looseObject({
  session_id: z.string().nullish(),
  trajectory_id: z.string().nullish(),
  trajectory_path: z.string().nullish(),
});

const observationSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      source_call_id: z.string().nullish(),
      content: z.unknown().optional(),
      subagent_trajectory_ref: z.array(subagentRefSchema).nullish(),
    }),
  ),
});

const toolCallSchema = z.looseObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  arguments: z.unknown().optional(),
});

const stepSchema = z.looseObject({
  step_id: z.int(),
  source: z.enum(["system", "user", "agent"]),
  message: z.unknown(),
  observation: observationSchema.nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  metrics: metricsSchema.nullish(),
  is_copied_context: z.boolean().nullish(),
});

const documentSchema = z.looseObject({
  schema_version: z.string().startsWith(ATIF_VERSION_PREFIX),
  session_id: z.string().nullish(),
  trajectory_id: z.string().nullish(),
  agent: z.looseObject({ name: z.string(), version: z.string(), model_name: z.string().nullish() }),
  steps: z.array(stepSchema),
  continued_trajectory_ref: z.string().nullish(),
  subagent_trajectories: z.array(z.unknown()).nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

type AtifDocument = z.infer<typeof documentSchema>;
type AtifStep = z.infer<typeof stepSchema>;

/**
 * Where one trajectory's tokens sit in its document, kept in `metadata.atif` so the writer can put
 * them back: `path` names the embedded subagent (trajectory ids from the root), `part` counts the
 * token contexts of that document (a prompt that does not extend the tokens so far starts a new
 * one), `steps[k]` is the step index whose completion is model segment k, with whether it had
 * prompt ids and logprobs. `document` is the document with those token arrays removed.
 */
export interface AtifPlacement {
  readonly version: string;
  /** Indices into `subagent_trajectories`, from the root document down; empty for the root. */
  readonly path: readonly number[];
  readonly part: number;
  readonly steps: readonly { index: number; prompt: boolean; logprobs: boolean }[];
  readonly trailingTokens?: boolean;
  readonly document: Readonly<Record<string, unknown>>;
}

/** Links the UI can follow from a trajectory read from ATIF (ids are trajectory ids of this file). */
export interface AtifLinks {
  /** The trajectory that embeds this one (a subagent's parent). */
  readonly parent?: string;
  /** Embedded subagent trajectories. */
  readonly children: readonly string[];
  /** Subagent runs referenced from observations (`subagent_trajectory_ref`), resolved or not. */
  readonly subagentRefs: readonly {
    readonly step: number;
    readonly sessionId?: string;
    readonly trajectoryId?: string;
    readonly trajectoryPath?: string;
  }[];
  /** The file or id that continues this run after a context compaction. */
  readonly continuedTrajectoryRef?: string;
  /** Token contexts of the same document before and after this one. */
  readonly previousPart?: string;
  readonly nextPart?: string;
}

/** The text of a step message: a string, or (v1.6) the text parts of a content-part list. */
function messageText(message: unknown): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return "";
  return message
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .join("");
}

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  if (ids.length < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (ids[k] !== prefix[k]) return false;
  return true;
}

function segment(kind: SegmentKind, tokenIds: number[], logprobs?: (number | null)[]): Segment {
  const n = tokenIds.length;
  return {
    kind,
    turn: 0,
    tokenIds,
    lossMask: new Array<0 | 1>(n).fill(kind === "model" ? 1 : 0),
    logprobs: logprobs ?? nulls(n),
  };
}

/** The document with the token arrays of `consumed` steps removed (what the writer refills). */
function skeleton(
  doc: Record<string, unknown>,
  consumed: ReadonlySet<number>,
): Record<string, unknown> {
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  const out: Record<string, unknown> = {
    ...doc,
    steps: steps.map((step: unknown, i) => {
      if (!consumed.has(i) || !isRecord(step) || !isRecord(step.metrics)) return step;
      const {
        prompt_token_ids: _p,
        completion_token_ids: _c,
        logprobs: _l,
        ...rest
      } = step.metrics;
      return { ...step, metrics: rest };
    }),
  };
  return out;
}

interface Part {
  segments: Segment[];
  flat: number[];
  steps: { index: number; prompt: boolean; logprobs: boolean }[];
}

function chatMessages(steps: readonly AtifStep[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const step of steps) {
    const role = step.source === "agent" ? "assistant" : step.source;
    out.push({ role, content: messageText(step.message) });
    for (const result of step.observation?.results ?? []) {
      if (typeof result.content === "string" || Array.isArray(result.content)) {
        out.push({ role: "tool", content: messageText(result.content) });
      }
    }
  }
  return out;
}

/**
 * The step's tool calls with their results (`observation.results[].source_call_id`). ATIF keeps
 * no call markup, so `raw` is the arguments' JSON and `span` is empty.
 */
function toolCallsOf(step: AtifStep): ToolCall[] {
  const results = new Map<string, string>();
  for (const r of step.observation?.results ?? []) {
    if (typeof r.source_call_id === "string") results.set(r.source_call_id, messageText(r.content));
  }
  return (step.tool_calls ?? []).map((c) => {
    const args = isRecord(c.arguments) ? c.arguments : {};
    const result = results.get(c.tool_call_id);
    return {
      id: c.tool_call_id,
      name: c.function_name,
      arguments: args,
      raw: JSON.stringify(args),
      span: [0, 0] as const,
      ...(result === undefined ? {} : { result }),
    };
  });
}

function withTurns(segments: readonly Segment[]): Segment[] {
  const turns = turnsOf(segments.map((s) => s.kind));
  return segments.map((s, i) => ({ ...s, turn: turns[i] ?? 0 }));
}

interface Collected {
  readonly trajectories: Trajectory[];
}

/** A document read by readDocument, and where it sits: what its rows are built from. */
interface ReadDocument {
  readonly doc: AtifDocument;
  readonly raw: Record<string, unknown>;
  readonly context: ReadContext;
  readonly path: readonly number[];
  readonly parent: string | undefined;
  readonly id: string;
}

/**
 * Reads one document (the root, or an embedded subagent at `path`) into trajectories appended to
 * `out`; returns the id of its first trajectory, or a field error (paths prefixed by `prefix`).
 */
function readDocument(
  value: unknown,
  context: ReadContext,
  path: readonly number[],
  prefix: string,
  parent: string | undefined,
  out: Collected,
): { ok: true; id: string } | { ok: false; error: FieldError } {
  const parsed = documentSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error, prefix) };
  const doc: AtifDocument = parsed.data;
  const at = (field: string) => (prefix === "" ? field : `${prefix}.${field}`);
  const own = path.at(-1);
  const baseId =
    doc.trajectory_id ??
    (own === undefined ? (doc.session_id ?? `L${context.line}`) : `subagent-${own}`);
  const id = own === undefined ? baseId : `${parent ?? `L${context.line}`}/${baseId}`;
  const parts = tokenParts(doc, at);
  if (!parts.ok) return parts;
  const raw = isRecord(value) ? value : {};
  const first = out.trajectories.length;
  pushDocumentRows({ doc, raw, context, path, parent, id }, parts.parts, parts.consumed, out);
  const children: string[] = [];
  for (const [i, sub] of (doc.subagent_trajectories ?? []).entries()) {
    const result = readDocument(
      sub,
      context,
      [...path, i],
      at(`subagent_trajectories[${i}]`),
      id,
      out,
    );
    if (!result.ok) return result;
    children.push(result.id);
  }
  if (children.length > 0) linkChildren(out, first, children);
  return { ok: true, id };
}

/**
 * The token contexts of a document's agent steps with token ids: the first prompt, then each
 * completion, the tokens a later prompt adds as a tool segment; a prompt that does not extend the
 * tokens so far starts a new context. With the indices of the steps whose token arrays were read.
 */
function tokenParts(
  doc: AtifDocument,
  at: (field: string) => string,
): { ok: true; parts: Part[]; consumed: Set<number> } | { ok: false; error: FieldError } {
  const parts: Part[] = [];
  const consumed = new Set<number>();
  for (const [i, step] of doc.steps.entries()) {
    const m = step.metrics;
    const completion = m?.completion_token_ids;
    if (step.source !== "agent" || !completion || step.is_copied_context) continue;
    const lp = m?.logprobs;
    if (lp && lp.length !== completion.length) {
      return {
        ok: false,
        error: {
          field: at(`steps[${i}].metrics.logprobs`),
          message: `has ${lp.length} entries but completion_token_ids has ${completion.length}`,
        },
      };
    }
    const prompt = m?.prompt_token_ids ?? undefined;
    let part = parts.at(-1);
    if (!part || (prompt && !startsWith(prompt, part.flat))) {
      // The first step, or a prompt that does not extend the tokens so far (a compacted or
      // re-rendered context): a new token context starts with this prompt.
      part = { segments: [segment("prompt", prompt ? prompt.slice() : [])], flat: [], steps: [] };
      part.flat.push(...(prompt ?? []));
      parts.push(part);
    } else if (prompt && prompt.length > part.flat.length) {
      const added = prompt.slice(part.flat.length);
      part.segments.push(segment("tool", added));
      for (const t of added) part.flat.push(t);
    }
    const model = segment("model", completion.slice(), lp ? lp.slice() : undefined);
    const calls = toolCallsOf(step);
    part.segments.push(calls.length > 0 ? { ...model, toolCalls: calls } : model);
    for (const t of completion) part.flat.push(t);
    part.steps.push({ index: i, prompt: !!prompt, logprobs: !!lp });
    consumed.add(i);
  }
  return { ok: true, parts, consumed };
}

/** The subagent runs a document's observations reference (`subagent_trajectory_ref`). */
function subagentRefsOf(doc: AtifDocument): AtifLinks["subagentRefs"][number][] {
  const refs: AtifLinks["subagentRefs"][number][] = [];
  for (const [i, step] of doc.steps.entries()) {
    for (const result of step.observation?.results ?? []) {
      for (const ref of result.subagent_trajectory_ref ?? []) {
        refs.push({
          step: i,
          sessionId: ref.session_id ?? undefined,
          trajectoryId: ref.trajectory_id ?? undefined,
          trajectoryPath: ref.trajectory_path ?? undefined,
        });
      }
    }
  }
  return refs;
}

/**
 * One trajectory per token context of the document onto `out` (one without segments when it has
 * none), each with its placement for the writer and its links to the other parts.
 */
function pushDocumentRows(
  read: ReadDocument,
  parts: Part[],
  consumed: ReadonlySet<number>,
  out: Collected,
): void {
  const { doc, context, path, parent, id } = read;
  const rl = isRecord(doc.extra?.rollout_lens) ? doc.extra.rollout_lens : undefined;
  // Our own export keeps tokens after the last completion (a tool result it was never sent back
  // with) here, since ATIF has no place for them.
  const trailing = rl && isTokenIdArray(rl.trailing_token_ids) ? rl.trailing_token_ids : undefined;
  const hasTrailing = trailing !== undefined && trailing.length > 0;
  const lastPart = parts.at(-1);
  if (trailing && hasTrailing && lastPart)
    lastPart.segments.push(segment("tool", trailing.slice()));
  const subagentRefs = subagentRefsOf(doc);
  const document = skeleton(read.raw, consumed);
  const partIds = parts.length <= 1 ? [id] : parts.map((_, k) => (k === 0 ? id : `${id}#${k + 1}`));
  const messages = chatMessages(doc.steps);
  const reward = typeof rl?.reward === "number" ? rl.reward : undefined;
  const rows = parts.length === 0 ? [undefined] : parts;
  rows.forEach((part, k) => {
    const placement: AtifPlacement = {
      version: doc.schema_version,
      path,
      part: k,
      steps: part?.steps ?? [],
      trailingTokens: k === rows.length - 1 && hasTrailing ? true : undefined,
      document,
    };
    const links: AtifLinks = {
      parent,
      children: [],
      subagentRefs,
      continuedTrajectoryRef: doc.continued_trajectory_ref ?? undefined,
      previousPart: k > 0 ? partIds[k - 1] : undefined,
      nextPart: k + 1 < rows.length ? partIds[k + 1] : undefined,
    };
    out.trajectories.push({
      id: partIds[k] ?? id,
      source: { kind: "file", path: context.path, line: context.line, row: 0 },
      format: "atif",
      model: doc.agent.model_name ?? undefined,
      status: "completed",
      reward,
      segments: part ? withTurns(part.segments) : [],
      messages,
      group: path.length === 0 ? undefined : `L${context.line}`,
      metadata: { [ATIF_META]: placement, [ATIF_LINKS]: links },
    });
  });
}

/** The embedded subagents' ids into the links of the document's first trajectory (at `first`). */
function linkChildren(out: Collected, first: number, children: readonly string[]): void {
  const t = out.trajectories[first];
  const links = t && linksOf(t);
  if (!t || !links) return;
  out.trajectories[first] = {
    ...t,
    metadata: { ...t.metadata, [ATIF_LINKS]: { ...links, children } },
  };
}

/**
 * Reads one ATIF document into trajectories: one per token context of the root, then one per
 * embedded subagent (v1.7 `subagent_trajectories`), each linked in `metadata.atif_links`. A
 * document without token ids (before v1.3, or a producer that did not record them) gives
 * trajectories without segments: its text stays in `messages`.
 */
export function readAtif(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const out: Collected = { trajectories: [] };
  const result = readDocument(value, context, [], "", undefined, out);
  if (!result.ok) return { ok: false, error: result.error };
  const trajectories = out.trajectories.map((t, row) => ({ ...t, source: { ...t.source, row } }));
  return { ok: true, trajectories };
}

/** The links of a trajectory read from ATIF, when it was. */
export function linksOf(t: Trajectory): AtifLinks | undefined {
  const links = t.metadata[ATIF_LINKS];
  return isRecord(links) && Array.isArray(links.children)
    ? (links as unknown as AtifLinks)
    : undefined;
}

export const atifAdapter: FormatAdapter = {
  id: "atif",
  detect: (v) =>
    typeof v.schema_version === "string" &&
    v.schema_version.startsWith(ATIF_VERSION_PREFIX) &&
    Array.isArray(v.steps),
  read: readAtif,
};

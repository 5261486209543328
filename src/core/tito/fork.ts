import { chooseTokenizer, leadingIds, signatureOfIds } from "../tokenizer/chooseTokenizer";
import { createIdsFitCheck } from "../tokenizer/idsFit";
import type { ChatTemplateMessage, Tokenizer } from "../tokenizer/types";
import type {
  ChatMessage,
  GenerateCall,
  Lineage,
  Segment,
  TopLogprob,
  Trajectory,
} from "../trajectory/types";
import type { IterationCounts } from "./limiter";
import { toolResultSuffix } from "./prompts";

/**
 * Branching a trajectory at token N: the exact prefix a new episode goes on from. The branch holds
 * the parent's ids 0..N-1 (never re-encoded text), with segments, mask and logprobs copied.
 *
 * Where N may be:
 * - on any model token: the segments before that model segment are copied whole, and the parent's
 *   tokens of that segment before N become the start of the branch's model segment (`partial`), so
 *   the branch's first generated token is position N;
 * - at the start of a tool segment (or of a later user prompt): the prefix ends with the model's
 *   call; the segment is kept as the parent had it, or (tool only) rebuilt from edited results,
 *   templated as the incremental suffix exactly as a live episode does. Generation starts after it.
 * Not inside the initial prompt or inside a tool/user segment: those tokens are what the chat template
 * rendered, and a model continuing them would be writing the template's text, not a turn.
 */

export interface ForkEdit {
  /** Replacement text of each tool result of the segment at N, in call order. */
  readonly toolResults: readonly string[];
}

export interface ForkOptions {
  /** The tokenizer the branch runs with; the parent must have been tokenized by the same one. */
  readonly tokenizerName: string;
  /** Needed for an edit (the edited results are templated and tokenized). */
  readonly tokenizer?: Tokenizer;
  readonly edit?: ForkEdit;
  /** Must match the parent's initial prompt (Qwen3's generation prompt depends on it). */
  readonly enableThinking?: boolean;
}

/** The parent's model tokens before N in the segment N is inside. */
export interface PartialModel {
  readonly turn: number;
  readonly tokenIds: readonly number[];
  readonly logprobs: readonly (number | null)[];
  readonly topLogprobs?: readonly (readonly TopLogprob[] | null)[];
  readonly keptTokenIds?: readonly (readonly number[] | null)[];
}

export interface ForkedPrefix {
  /** Whole segments the branch starts with (the last is a prompt or tool segment). */
  readonly segments: readonly Segment[];
  /** Parent calls that produced the whole model segments above (their inputLen still holds). */
  readonly calls: readonly GenerateCall[];
  /** Set when N is inside a model segment (N > its start). */
  readonly partial?: PartialModel;
  /** What the branch's first `/generate` sends: the segments' ids, then the partial's. */
  readonly inputIds: readonly number[];
  readonly counts: IterationCounts;
  readonly messages: readonly ChatMessage[];
  readonly lineage: Lineage;
}

export type ForkResult =
  | { readonly ok: true; readonly prefix: ForkedPrefix }
  | { readonly ok: false; readonly error: string };

const fail = (error: string): ForkResult => ({ ok: false, error });

const callId = (i: number) => `call_${String(i).padStart(4, "0")}`;

/** Where token `index` lies: its segment and the segment's first token. */
function locate(
  segments: readonly Segment[],
  index: number,
): { readonly at: number; readonly start: number } | undefined {
  let start = 0;
  for (let at = 0; at < segments.length; at++) {
    const length = segments[at]?.tokenIds.length ?? 0;
    if (index < start + length) return { at, start };
    start += length;
  }
  return undefined;
}

/** The tool-call ids the segment after model segment `model` answers (parsed, else call_0000…). */
function answeredCallIds(model: Segment | undefined, count: number): string[] {
  const calls = model?.kind === "model" ? (model.toolCalls ?? []) : [];
  return Array.from({ length: count }, (_, i) => calls[i]?.id ?? callId(i));
}

function totalTokens(segments: readonly Segment[]): number {
  let n = 0;
  for (const s of segments) n += s.tokenIds.length;
  return n;
}

/** Rebuilds the tool segment at `at` from edited results, templated as a live episode does. */
function editedToolSegment(
  parent: Trajectory,
  at: number,
  edit: ForkEdit,
  options: ForkOptions,
): { segment: Segment; messages: ChatTemplateMessage[] } | string {
  const segment = parent.segments[at];
  const model = parent.segments[at - 1];
  if (!options.tokenizer) return "an edited tool result needs the tokenizer to template it";
  const expected = model?.toolCalls?.length;
  if (edit.toolResults.length === 0) return "the edit has no tool result";
  if (expected !== undefined && expected > 0 && edit.toolResults.length !== expected) {
    return (
      `the tool segment at the fork answers ${expected} tool call(s) but the edit has ` +
      `${edit.toolResults.length} result(s): give one per call, in call order`
    );
  }
  const ids = answeredCallIds(model, edit.toolResults.length);
  const messages: ChatTemplateMessage[] = edit.toolResults.map((content, i) => ({
    role: "tool",
    content,
    tool_call_id: ids[i] ?? callId(i),
  }));
  let rendered: { tokenIds: number[]; text: string };
  try {
    rendered = toolResultSuffix(
      options.tokenizer,
      messages,
      options.enableThinking === undefined ? {} : { enableThinking: options.enableThinking },
    );
  } catch (error) {
    return `the edited tool result cannot be templated: ${error instanceof Error ? error.message : String(error)}`;
  }
  const n = rendered.tokenIds.length;
  return {
    segment: {
      kind: "tool",
      turn: segment?.turn ?? 0,
      tokenIds: rendered.tokenIds,
      lossMask: new Array<0>(n).fill(0),
      logprobs: new Array<null>(n).fill(null),
      text: rendered.text,
      edited: true,
    },
    messages,
  };
}

/** The chat messages of the copied segments: the parent's opening messages, then one per turn. */
function prefixMessages(
  parent: Trajectory,
  segments: readonly Segment[],
  editedMessages: readonly ChatTemplateMessage[] | undefined,
): ChatMessage[] {
  const all = parent.messages ?? [];
  const firstAssistant = all.findIndex((m) => m.role === "assistant");
  const out: ChatMessage[] = (firstAssistant === -1 ? all : all.slice(0, firstAssistant)).map(
    (m) => ({ ...m }),
  );
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i];
    if (!segment) continue;
    if (segment.kind === "model") {
      out.push({ role: "assistant", content: segment.text ?? "" });
    } else if (segment.kind === "tool") {
      if (segment.edited && editedMessages) {
        out.push(...editedMessages.map((m) => ({ ...m })));
        continue;
      }
      const calls = segments[i - 1]?.toolCalls ?? [];
      if (calls.length === 0) out.push({ role: "tool", content: segment.text ?? "" });
      for (const call of calls)
        out.push({ role: "tool", content: call.result ?? "", tool_call_id: call.id });
    } else {
      out.push({ role: "user", content: segment.text ?? "" });
    }
  }
  return out;
}

/** Tool iterations and calls the copied segments already spent (one per tool segment). */
function spentCounts(segments: readonly Segment[]): IterationCounts {
  let toolIterations = 0;
  let toolCalls = 0;
  for (let i = 1; i < segments.length; i++) {
    if (segments[i]?.kind !== "tool") continue;
    toolIterations++;
    toolCalls += Math.max(1, segments[i - 1]?.toolCalls?.length ?? 0);
  }
  return { toolIterations, toolCalls };
}

/** Parent calls whose input was exactly the copied tokens before each whole model segment. */
function copiedCalls(parent: Trajectory, segments: readonly Segment[]): GenerateCall[] {
  const calls = parent.calls ?? [];
  const out: GenerateCall[] = [];
  let offset = 0;
  for (const segment of segments) {
    if (segment.kind === "model") {
      const call = calls.find(
        (c) => c.inputLen === offset && c.outputLen === segment.tokenIds.length,
      );
      if (call) out.push(call);
    }
    offset += segment.tokenIds.length;
  }
  return out;
}

/**
 * What a fork at token `index` would do, for the UI (the server decides with `forkPrefix`):
 * `model` continues inside a model turn, `tool` starts at a tool result (which may be edited),
 * `input` starts at a later user turn; undefined where no branch can start.
 */
export function forkKind(
  segments: readonly Segment[],
  index: number,
): "model" | "tool" | "input" | undefined {
  const where = Number.isInteger(index) && index >= 0 ? locate(segments, index) : undefined;
  const segment = where ? segments[where.at] : undefined;
  if (!where || !segment) return undefined;
  if (segment.kind === "model") return "model";
  if (where.at === 0 || index !== where.start) return undefined;
  return segment.kind === "tool" ? "tool" : "input";
}

/**
 * The first token at or after `from` where a branch's ids leave its parent's (a different id, or
 * one side ending); the shorter length when one is a prefix of the other.
 */
export function departureIndex(
  parentIds: readonly number[],
  branchIds: readonly number[],
  from: number,
): number {
  const end = Math.min(parentIds.length, branchIds.length);
  for (let i = Math.max(0, from); i < end; i++) if (parentIds[i] !== branchIds[i]) return i;
  return end;
}

/**
 * True when the tokenizer `parent` records is `name`: the same name, or one that `chooseTokenizer`
 * maps to it (`Qwen/Qwen3-4B-Instruct-2507` → `qwen3`), unless its first ids say another family.
 */
function namesSameTokenizer(parent: Trajectory, name: string): boolean {
  if (parent.tokenizer === name) return true;
  const choice = chooseTokenizer({
    picked: undefined,
    recorded: [parent.tokenizer],
    firstIds: leadingIds(parent),
    names: [name],
    fallback: "",
  });
  const signature = signatureOfIds(leadingIds(parent));
  return (
    choice.reason === "recorded" &&
    choice.name === name &&
    (signature === undefined || name.toLowerCase().includes(signature.family))
  );
}

/**
 * The prefix a branch of `parent` at token `index` starts from, or why there can be none (a 400 at
 * the API): the index outside the trajectory or inside a templated prompt/tool segment, an unknown
 * tokenizer, or an edit where there is no tool result to edit.
 */
export function forkPrefix(parent: Trajectory, index: number, options: ForkOptions): ForkResult {
  const total = totalTokens(parent.segments);
  if (!parent.tokenizer && !options.tokenizer) {
    return fail(
      `trajectory "${parent.id}" records no tokenizer: its token ids cannot be continued by ` +
        `${options.tokenizerName} without knowing they are its ids`,
    );
  }
  // A record that names no tokenizer (slime, atropos) is continued by the one the tokenizer rule
  // chose (docs/format.md#which-tokenizer-reads-a-row) when its ids can be that tokenizer's.
  const misfit = options.tokenizer ? createIdsFitCheck(options.tokenizer)(parent) : undefined;
  if (misfit !== undefined) {
    return fail(
      `trajectory "${parent.id}" cannot be continued by ${options.tokenizerName}: ${misfit.message}`,
    );
  }
  if (parent.tokenizer && !namesSameTokenizer(parent, options.tokenizerName)) {
    return fail(
      `trajectory "${parent.id}" was tokenized with ${parent.tokenizer}, but the server runs ` +
        `${options.tokenizerName}: its token ids mean something else to this model`,
    );
  }
  if (!Number.isInteger(index) || index < 0 || index >= total) {
    return fail(
      `fork index ${index} is outside the trajectory (it has ${total} tokens, 0..${total - 1})`,
    );
  }
  const where = locate(parent.segments, index);
  const segment = where ? parent.segments[where.at] : undefined;
  if (!where || !segment) return fail(`fork index ${index} is outside the trajectory`);
  const { at, start } = where;
  const atStart = index === start;
  if (segment.kind !== "model" && (at === 0 || !atStart)) {
    const what = at === 0 ? "the initial prompt" : `${segment.kind} segment ${at}`;
    return fail(
      `fork index ${index} is inside ${what} (tokens ${start}..${start + segment.tokenIds.length - 1}), ` +
        "which the chat template rendered: a branch continues at a model token or at the start " +
        `of a tool result (here ${start}${at === 0 ? ", or a later turn" : ""}), never in the middle of templated text`,
    );
  }
  if (options.edit && !(segment.kind === "tool" && atStart)) {
    return fail(
      `fork index ${index} is not the start of a tool segment: only a tool result can be edited ` +
        "before branching",
    );
  }

  const segments: Segment[] = parent.segments.slice(0, at).map((s) => ({ ...s }));
  let editedMessages: ChatTemplateMessage[] | undefined;
  let partial: PartialModel | undefined;
  if (segment.kind === "model") {
    const cut = index - start;
    if (cut > 0) {
      partial = {
        turn: segment.turn,
        tokenIds: segment.tokenIds.slice(0, cut),
        logprobs: segment.logprobs.slice(0, cut),
        ...(segment.topLogprobs ? { topLogprobs: segment.topLogprobs.slice(0, cut) } : {}),
        ...(segment.keptTokenIds ? { keptTokenIds: segment.keptTokenIds.slice(0, cut) } : {}),
      };
    }
  } else if (options.edit) {
    const edited = editedToolSegment(parent, at, options.edit, options);
    if (typeof edited === "string") return fail(edited);
    segments.push(edited.segment);
    editedMessages = edited.messages;
    // The model segment that called the tool now shows the edited results.
    const modelIndex = at - 1;
    const model = segments[modelIndex];
    if (model?.toolCalls) {
      segments[modelIndex] = {
        ...model,
        toolCalls: model.toolCalls.map((call, i) => ({
          ...call,
          result: options.edit?.toolResults[i] ?? call.result ?? "",
          resultIsError: false,
        })),
      };
    }
  } else {
    segments.push({ ...segment });
  }
  // A copied segment that ended the parent (the cutoff mark) does not end the branch.
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    if (s?.cutoff) {
      const { cutoff: _c, cutoffReason: _r, ...rest } = s;
      segments[i] = rest;
    }
  }

  const inputIds: number[] = [];
  for (const s of segments) for (const id of s.tokenIds) inputIds.push(id);
  if (partial) for (const id of partial.tokenIds) inputIds.push(id);
  return {
    ok: true,
    prefix: {
      segments,
      calls: copiedCalls(parent, segments),
      ...(partial ? { partial } : {}),
      inputIds,
      counts: spentCounts(segments),
      messages: prefixMessages(parent, segments, editedMessages),
      lineage: {
        parentId: parent.id,
        forkIndex: index,
        ...(options.edit ? { editedToolResults: options.edit.toolResults.slice() } : {}),
      },
    },
  };
}

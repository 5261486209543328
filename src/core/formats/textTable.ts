import { isRecord } from "../isRecord";
import type { ChatMessage, Trajectory } from "../trajectory/types";
import { suggestColumnMapping } from "./columnMapping";
import { messageText } from "./textRecords";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";

/*
 * A table no known producer wrote that holds a prompt and a completion as text (or a whole
 * conversation: OpenAI chat `messages`, ShareGPT `conversations`) and maybe a reward, but no
 * token ids (docs/format.md "Text tables"): the shape an SFT or eval export, a
 * Tinker-style sample table or a hand-made Parquet takes. It opens as text with its reward;
 * drift and mismatch say why they cannot check it (idsAbsent.ts). Every column stays verbatim in
 * metadata. Sniffed last: any producer with its own keys wins.
 */

type Rec = Readonly<Record<string, unknown>>;

/** The text columns read as the prompt, then as the completion, first match wins. */
export const PROMPT_COLUMNS = ["prompt", "question", "query", "instruction", "problem", "input"];
export const COMPLETION_COLUMNS = [
  "completion",
  "response",
  "output",
  "answer",
  "generation",
  "generated_text",
];
/** The reward columns, first match wins. */
const REWARD_COLUMNS = ["reward", "score", "rewards"];
/**
 * The columns read as a whole conversation when no prompt and completion are (OpenAI chat
 * `messages`, ShareGPT `conversations` of `from`/`value`), first match wins.
 */
const CONVERSATION_COLUMNS = ["messages", "conversations", "conversation", "chat", "dialog"];
/** Columns that hold ids: a record with one of them is not text-only, whatever else it holds. */
const ID_COLUMNS = ["tokens", "token_ids", "input_ids", "prompt_ids", "completion_ids", "ids"];

/**
 * One message of a chat: OpenAI's `role` and `content` (a string, content parts, or null beside
 * `tool_calls`, which are shown as lines of text) or ShareGPT's `from` and `value`, roles
 * verbatim; undefined for what has neither role nor `from`.
 */
function messageOf(m: unknown): ChatMessage | undefined {
  if (typeof m !== "object" || m === null) return undefined;
  const r = m as Rec;
  const role = typeof r.role === "string" ? r.role : r.from;
  if (typeof role !== "string") return undefined;
  return { role, content: messageText("role" in r ? r.content : r.value, r) };
}

/** A column's text: a string, or a chat (a list of messages, or of OpenAI content parts). */
function textOf(value: unknown): string | ChatMessage[] | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const messages = value.map(messageOf);
  return messages.every((m) => m !== undefined) ? (messages as ChatMessage[]) : undefined;
}

function columnOf(v: Rec, names: readonly string[]): string | undefined {
  return names.find((n) => textOf(v[n]) !== undefined);
}

function asMessages(text: string | ChatMessage[], role: string): ChatMessage[] {
  return typeof text === "string" ? [{ role, content: text }] : text;
}

/** A number written as text (a CSV turned into a table): decimal, with an optional exponent. */
const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * The record's reward: a number or null; a list of numbers summed; a number written as text.
 * Rewards by function (an object of numbers, TRL-style) make no total, since their weights are
 * not in the row: the row has none, and the object stays in metadata. Anything else is bad.
 */
function rewardOf(v: Rec): { field?: string; value: number | null | undefined } | "bad" {
  const field = REWARD_COLUMNS.find((n) => n in v);
  if (field === undefined) return { value: undefined };
  const value = v[field];
  if (value === null || typeof value === "number") return { field, value };
  if (Array.isArray(value) && value.every((x) => typeof x === "number")) {
    return { field, value: value.reduce((a: number, b: number) => a + b, 0) };
  }
  if (typeof value === "string" && NUMBER_TEXT.test(value)) return { field, value: Number(value) };
  if (isRecord(value) && Object.values(value).every((x) => typeof x === "number" || x === null)) {
    return { field, value: undefined };
  }
  return "bad";
}

/**
 * The columns that name a row's group (its GRPO group, verl's `uid`, or the example its rollouts
 * answer), first match wins: rows that share the value are one group for group forensics. A bare
 * `group` is not one: tables use it for a task or data subset as often.
 */
const GROUP_COLUMNS = ["group_id", "group_index", "uid", "example_id", "prompt_id"];

/**
 * Truncated when the record says so: verifiers' `is_truncated`, a `truncated` flag, or a finish
 * (`finish_reason`, `stop_reason`) of `length`; completed otherwise, as nothing else is recorded.
 */
function statusOf(v: Rec): "completed" | "truncated" {
  const isCut =
    v.is_truncated === true ||
    v.truncated === true ||
    v.finish_reason === "length" ||
    v.stop_reason === "length";
  return isCut ? "truncated" : "completed";
}

/** The record's group: the first group column holding a string or a number. */
function groupOf(v: Rec): string | undefined {
  for (const name of GROUP_COLUMNS) {
    const value = v[name];
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) {
      return String(value);
    }
  }
  return undefined;
}

/**
 * True for a column a text table reads as text or as a group's name: delimited text keeps such a
 * column's cells as written (an answer "72" or a uid "0012" is text), not as numbers.
 */
export function isTextColumn(name: string): boolean {
  return TEXT_COLUMNS.has(name);
}
const TEXT_COLUMNS = new Set([
  ...PROMPT_COLUMNS,
  ...COMPLETION_COLUMNS,
  ...CONVERSATION_COLUMNS,
  ...GROUP_COLUMNS,
]);

/** The record's prompt and completion as messages, else its conversation, else what is missing. */
function messagesOf(value: Rec): ChatMessage[] | { field: string } {
  const prompt = columnOf(value, PROMPT_COLUMNS);
  const completion = columnOf(value, COMPLETION_COLUMNS);
  const promptText = prompt === undefined ? undefined : textOf(value[prompt]);
  const completionText = completion === undefined ? undefined : textOf(value[completion]);
  if (promptText !== undefined && completionText !== undefined) {
    return [...asMessages(promptText, "user"), ...asMessages(completionText, "assistant")];
  }
  const conversation = conversationOf(value);
  if (conversation) return conversation;
  return { field: promptText === undefined ? "prompt" : "completion" };
}

/** The record's conversation column as messages, when it has one. */
function conversationOf(value: Rec): ChatMessage[] | undefined {
  const column = CONVERSATION_COLUMNS.find((n) => Array.isArray(textOf(value[n])));
  return column === undefined ? undefined : (textOf(value[column]) as ChatMessage[]);
}

function readTextTable(value: Rec, context: ReadContext): ReadResult {
  const messages = messagesOf(value);
  if (!Array.isArray(messages)) {
    const message = "expected text or a list of messages";
    return { ok: false, error: { field: messages.field, message } };
  }
  const reward = rewardOf(value);
  if (reward === "bad") {
    const message = "expected a number, a list of numbers, rewards by name, or null";
    return { ok: false, error: { field: "reward", message } };
  }
  const group = groupOf(value);
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "text-table",
    status: statusOf(value),
    reward: reward.value,
    segments: [],
    messages,
    metadata: { ...value },
    ...(group === undefined ? {} : { group }),
  };
  return { ok: true, trajectories: [t] };
}

/** A record with a prompt and a completion as text, or a conversation, and no id column. */
function isTextTable(v: Rec): boolean {
  // Columns that look like token ids are better read through `--map` (the unknown-record error says how).
  if (ID_COLUMNS.some((n) => n in v) || suggestColumnMapping(Object.keys(v))) return false;
  const prompt = columnOf(v, PROMPT_COLUMNS);
  const completion = columnOf(v, COMPLETION_COLUMNS);
  const isPair = prompt !== undefined && completion !== undefined && prompt !== completion;
  return isPair || conversationOf(v) !== undefined;
}

export const textTableAdapter: FormatAdapter = {
  id: "text-table",
  detect: isTextTable,
  read: readTextTable,
};

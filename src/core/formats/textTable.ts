import type { ChatMessage, Trajectory } from "../trajectory/types";
import { contentText } from "./textRecords";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";

/*
 * A table no known producer wrote that holds a prompt and a completion as text and maybe a
 * reward, but no token ids (docs/format.md "Text tables"): the shape an SFT or eval export, a
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
/** Columns that hold ids: a record with one of them is not text-only, whatever else it holds. */
const ID_COLUMNS = ["tokens", "token_ids", "input_ids", "prompt_ids", "completion_ids", "ids"];

/** A column's text: a string, or a chat (a list of messages, or of OpenAI content parts). */
function textOf(value: unknown): string | ChatMessage[] | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const messages = value.filter(
    (m): m is Rec => typeof m === "object" && m !== null && typeof m.role === "string",
  );
  if (messages.length !== value.length) return undefined;
  return messages.map((m) => ({ role: m.role as string, content: contentText(m.content) }));
}

function columnOf(v: Rec, names: readonly string[]): string | undefined {
  return names.find((n) => textOf(v[n]) !== undefined);
}

function asMessages(text: string | ChatMessage[], role: string): ChatMessage[] {
  return typeof text === "string" ? [{ role, content: text }] : text;
}

function rewardOf(v: Rec): { field?: string; value: number | null | undefined } | "bad" {
  const field = REWARD_COLUMNS.find((n) => n in v);
  if (field === undefined) return { value: undefined };
  const value = v[field];
  if (value === null || typeof value === "number") return { field, value };
  if (Array.isArray(value) && value.every((x) => typeof x === "number")) {
    return { field, value: value.reduce((a: number, b: number) => a + b, 0) };
  }
  return "bad";
}

function readTextTable(value: Rec, context: ReadContext): ReadResult {
  const prompt = columnOf(value, PROMPT_COLUMNS);
  const completion = columnOf(value, COMPLETION_COLUMNS);
  const promptText = prompt === undefined ? undefined : textOf(value[prompt]);
  const completionText = completion === undefined ? undefined : textOf(value[completion]);
  if (promptText === undefined || completionText === undefined) {
    const field = promptText === undefined ? "prompt" : "completion";
    return { ok: false, error: { field, message: "expected text or a list of messages" } };
  }
  const reward = rewardOf(value);
  if (reward === "bad") {
    return { ok: false, error: { field: "reward", message: "expected a number or null" } };
  }
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "text-table",
    status: "completed",
    reward: reward.value,
    segments: [],
    messages: [...asMessages(promptText, "user"), ...asMessages(completionText, "assistant")],
    metadata: { ...value },
  };
  return { ok: true, trajectories: [t] };
}

/** A record with a prompt and a completion as text and no id column. */
function isTextTable(v: Rec): boolean {
  if (ID_COLUMNS.some((n) => n in v)) return false;
  const prompt = columnOf(v, PROMPT_COLUMNS);
  const completion = columnOf(v, COMPLETION_COLUMNS);
  return prompt !== undefined && completion !== undefined && prompt !== completion;
}

export const textTableAdapter: FormatAdapter = {
  id: "text-table",
  detect: isTextTable,
  read: readTextTable,
};

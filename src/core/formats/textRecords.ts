import { isRecord } from "../isRecord";
import type { ChatMessage, Trajectory } from "../trajectory/types";
import { parseJsonLine } from "./jsonLine";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";
import { remainder } from "./wireSchemas";

/*
 * Records that hold a conversation and a reward but no token ids, as two trainers write them to
 * Parquet (docs/format.md "Parquet"): prime-rl's per-step samples table (`PrimeMonitor`, messages
 * as JSON strings, a `trajectory` JSON string of turns with token counts) and OpenPipe ART's
 * trajectory table (`write_trajectory_groups_parquet`, a `messages` list of structs). Like verl
 * they open as text and rewards; every column stays verbatim in metadata so a line writes back.
 */

/** A message's text: a string, or the text parts of an OpenAI content-part list. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("");
}

/**
 * A tool call as a line of text: its function's name and arguments (OpenAI `tool_calls`, or a
 * flat `{name, arguments}`). verifiers' results write each call as its JSON text
 * (`sanitize_tool_calls`), which is read first. A call with no name is shown as its JSON, and
 * a text that is no JSON object as it is: never as an empty call.
 */
function toolCallText(call: unknown): string {
  const parsed = typeof call === "string" ? parseJsonLine(call) : undefined;
  const value = parsed?.ok ? parsed.value : call;
  if (!isRecord(value)) {
    return `[tool call] ${typeof call === "string" ? call : String(JSON.stringify(call))}`;
  }
  const f = isRecord(value.function) ? value.function : value;
  if (typeof f.name !== "string") return `[tool call] ${JSON.stringify(value)}`;
  const args = typeof f.arguments === "string" ? f.arguments : JSON.stringify(f.arguments ?? {});
  return `[tool call] ${f.name} ${args}`;
}

/**
 * A message's text: its content (a string, content parts; anything else as its JSON, never
 * dropped; `null` beside tool calls as nothing), then its `tool_calls` (and legacy
 * `function_call`) as `[tool call] NAME ARGUMENTS` lines.
 */
export function messageText(body: unknown, m: Readonly<Record<string, unknown>>): string {
  const text =
    typeof body === "string" || Array.isArray(body)
      ? contentText(body)
      : body === null || body === undefined
        ? ""
        : JSON.stringify(body);
  const calls = [
    ...(Array.isArray(m.tool_calls) ? m.tool_calls : []),
    ...(m.function_call ? [m.function_call] : []),
  ].map(toolCallText);
  return [text, ...calls].filter((x) => x !== "").join("\n");
}

function toMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((m) => ({
    role: typeof m.role === "string" ? m.role : "unknown",
    content: messageText(m.content, m),
  }));
}

/** Messages from a JSON-string column; a string that is not a JSON list is one user message. */
function messagesOfJson(text: unknown, role: string): ChatMessage[] {
  if (typeof text !== "string" || text.length === 0) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return toMessages(parsed);
  } catch {
    // a plain-text prompt or completion
  }
  return [{ role, content: text }];
}

function textTrajectory(
  format: "prime" | "art",
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
  messages: ChatMessage[],
  group: string | undefined,
): ReadResult {
  const reward = value.reward;
  if (reward !== undefined && reward !== null && typeof reward !== "number") {
    return { ok: false, error: { field: "reward", message: "expected a number or null" } };
  }
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format,
    status: "completed",
    reward: typeof reward === "number" ? reward : reward === null ? null : undefined,
    segments: [],
    messages,
    group,
    metadata: remainder(value, new Set(["reward"])),
  };
  return { ok: true, trajectories: [t] };
}

/** Reads one row of prime-rl's samples table. */
export function readPrime(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const messages = [
    ...messagesOfJson(value.prompt, "user"),
    ...messagesOfJson(value.completion, "assistant"),
  ];
  const group =
    value.problem_id === undefined || value.problem_id === null
      ? undefined
      : String(value.problem_id);
  return textTrajectory("prime", value, context, messages, group);
}

/**
 * ART v2 (`format_version: 2`, `OpenPipe/ART:src/art/utils/trajectory_logging.py`): the authoritative
 * `trajectory_json` (a Trajectory's `messages_and_choices`: plain messages, and Choices whose
 * `message` the model produced with its `logprobs`); `messages` is null when the trajectory records
 * `exchanges`. The messages from it, each Choice's logprobs (per token text, no ids) kept beside.
 */
function artV2Messages(
  json: unknown,
): { messages: ChatMessage[]; logprobs: unknown[] } | undefined {
  if (typeof json !== "string") return undefined;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || !Array.isArray(data.messages_and_choices)) return undefined;
  return messagesAndChoices(data.messages_and_choices);
}

/**
 * A Trajectory's `messages_and_choices` as messages: plain messages as they are, each Choice's
 * `message` (what the model produced) with its `logprobs` (null where removed) kept beside.
 */
function messagesAndChoices(items: readonly unknown[]): {
  messages: ChatMessage[];
  logprobs: unknown[];
} {
  const logprobs: unknown[] = [];
  const raw = items.filter(isRecord).map((item) => {
    if (!("finish_reason" in item) || !isRecord(item.message)) return item;
    logprobs.push(item.logprobs ?? null);
    return { ...item.message, trainable: true };
  });
  return { messages: toMessages(raw), logprobs };
}

/**
 * One trajectory of ART's trajectories YAML (artYaml.ts: its group's index and metadata beside
 * its own keys); the writer removed the Choices' logprobs, so none are kept.
 */
function readArtYaml(value: Readonly<Record<string, unknown>>, context: ReadContext): ReadResult {
  const items = value.messages_and_choices;
  if (!Array.isArray(items)) {
    const message = "expected a list of messages and choices (an ART trajectory)";
    return { ok: false, error: { field: "messages_and_choices", message } };
  }
  const { messages } = messagesAndChoices(items);
  return textTrajectory("art", value, context, messages, String(value.group_index));
}

/** Reads one row of ART's trajectory table. */
export function readArt(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  if (value.format_version === undefined && "messages_and_choices" in value) {
    return readArtYaml(value, context);
  }
  if (value.format_version === 2 && value.trajectory_index === null) {
    // A group sentinel: a group that produced no trajectory keeps its row, holding none.
    return { ok: true, trajectories: [] };
  }
  if (value.format_version === 2 && !Array.isArray(value.messages)) {
    const v2 = artV2Messages(value.trajectory_json);
    if (!v2) {
      return {
        ok: false,
        error: {
          field: "trajectory_json",
          message: "expected a JSON trajectory with messages_and_choices",
        },
      };
    }
    const group = value.group_index === undefined ? undefined : String(value.group_index);
    const read = textTrajectory("art", value, context, v2.messages, group);
    if (!read.ok) return read;
    const [t] = read.trajectories;
    return t
      ? {
          ok: true,
          trajectories: [{ ...t, metadata: { ...t.metadata, choice_logprobs: v2.logprobs } }],
        }
      : read;
  }
  if (!Array.isArray(value.messages)) {
    return { ok: false, error: { field: "messages", message: "expected a list of messages" } };
  }
  const group = value.group_index === undefined ? undefined : String(value.group_index);
  return textTrajectory("art", value, context, toMessages(value.messages), group);
}

/** Writes a text-only prime or ART row back (columns from metadata, `reward` from the reward). */
export function writeTextRecord(t: Trajectory): Record<string, unknown> {
  return { ...t.metadata, reward: t.reward ?? null };
}

export const primeAdapter: FormatAdapter = {
  id: "prime",
  detect: (v) =>
    typeof v.trajectory === "string" &&
    typeof v.prompt === "string" &&
    typeof v.completion === "string" &&
    "sample_id" in v,
  read: readPrime,
};

export const artAdapter: FormatAdapter = {
  id: "art",
  detect: (v) =>
    (v.format_version === 2 && "group_index" in v && "trajectory_json" in v) ||
    (v.format_version === undefined && "group_index" in v && "messages_and_choices" in v) ||
    ("group_index" in v &&
      Array.isArray(v.messages) &&
      v.messages.every((m) => isRecord(m) && "trainable" in m)),
  read: readArt,
};

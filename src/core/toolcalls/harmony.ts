import { isRecord } from "../isRecord";
import type { ToolCall } from "../trajectory/types";
import { callId, type ToolCallParser, UNKNOWN_TOOL } from "./types";

/**
 * OpenAI's Harmony format (gpt-oss), from openai/harmony:docs/format.md: a model turn is one or more
 * messages `<|start|>assistant HEADER<|message|>BODY` closed by `<|end|>`, `<|call|>` (a tool call)
 * or `<|return|>` (done); the first message's `<|start|>assistant` is the generation prompt, so
 * the output starts at its header. The header holds `<|channel|>CHANNEL`, an optional recipient
 * `to=functions.NAME` (in the role or the channel part) and an optional `<|constrain|>json`.
 */

export interface HarmonyMessage {
  readonly channel: string;
  /** `functions.calculator` for a function call; undefined for a message to the user/analysis. */
  readonly recipient?: string;
  readonly constrain?: string;
  readonly body: string;
  /** The token that closed it; empty when the text ended first (cut off). */
  readonly end: "<|end|>" | "<|call|>" | "<|return|>" | "";
  /** [start, end) characters of the whole message in the parsed text. */
  readonly span: readonly [number, number];
}

const MESSAGE =
  /(?:<\|start\|>assistant)?((?:(?!<\|message\|>|<\|start\|>)[\s\S])*?<\|channel\|>(?:(?!<\|message\|>|<\|start\|>)[\s\S])*?)<\|message\|>([\s\S]*?)(<\|end\|>|<\|call\|>|<\|return\|>|$)/g;

/** The assistant messages of one Harmony text (a model turn, or an assistant message's content). */
export function parseHarmonyMessages(text: string): HarmonyMessage[] {
  const messages: HarmonyMessage[] = [];
  for (const match of text.matchAll(MESSAGE)) {
    if (match[0].length === 0) break;
    const header = match[1] ?? "";
    const channel = /<\|channel\|>([A-Za-z_]+)/.exec(header)?.[1] ?? "";
    const recipient = /to=([^\s<]+)/.exec(header)?.[1];
    const constrain =
      /<\|constrain\|>\s*([^\s<]+)/.exec(header)?.[1] ?? /\s(json)\s*$/.exec(header)?.[1];
    messages.push({
      channel,
      ...(recipient === undefined ? {} : { recipient }),
      ...(constrain === undefined ? {} : { constrain }),
      body: match[2] ?? "",
      end: (match[3] ?? "") as HarmonyMessage["end"],
      span: [match.index, match.index + match[0].length],
    });
    if (match.index + match[0].length >= text.length) break;
  }
  return messages;
}

function harmonyCall(index: number, message: HarmonyMessage): ToolCall {
  const id = callId(index);
  const recipient = message.recipient ?? "";
  const name = recipient.startsWith("functions.")
    ? recipient.slice("functions.".length)
    : recipient;
  const base = { id, name: name || UNKNOWN_TOOL, raw: message.body, span: message.span };
  if (message.end !== "<|call|>") {
    return { ...base, arguments: {}, error: "the tool call was not closed by <|call|>" };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ...base, arguments: {}, error: `invalid JSON: ${reason}` };
  }
  if (!isRecord(parsed))
    return { ...base, arguments: {}, error: "the arguments are not a JSON object" };
  return { ...base, arguments: parsed };
}

/** gpt-oss: every message with a recipient is a call; its body is the JSON arguments. */
export const harmonyParser: ToolCallParser = {
  name: "harmony",
  parse(text) {
    return parseHarmonyMessages(text)
      .filter((m) => m.recipient !== undefined)
      .map((m, i) => harmonyCall(i, m));
  },
};

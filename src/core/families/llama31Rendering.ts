import type { ChatTemplateMessage, ChatTemplateOptions, ToolSchema } from "../tokenizer/types";
import { pythonJson } from "./pythonJson";

/**
 * Llama 3.1's prompt format, written from Meta's specification (meta-llama/llama-models:
 * "JSON based tool calling", see docs/templates.md), for the npm tokenizer whose
 * template has no tools:
 *
 * - every message is `<|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT` closed by `<|eot_id|>`,
 *   the first one after `<|begin_of_text|>`; content is written as given (never trimmed);
 * - with tools, the system message starts with `Environment: ipython`, and the functions are
 *   listed in a user message of their own before the conversation's first user message;
 * - a tool call is the assistant writing `<|python_tag|>` and a JSON object `{"name", "parameters"}`,
 *   ended by `<|eom_id|>` (end of message: the executor answers) instead of `<|eot_id|>`;
 * - a tool result is an `ipython` message;
 * - the generation prompt is the assistant header.
 */

export const LLAMA31 = {
  begin: "<|begin_of_text|>",
  header: (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`,
  endOfTurn: "<|eot_id|>",
  endOfMessage: "<|eom_id|>",
  pythonTag: "<|python_tag|>",
} as const;

const TOOL_INSTRUCTIONS =
  "Answer the user's question by making use of the following functions if needed.\n" +
  "If none of the function can be used, please say so.\n" +
  "Here is a list of functions in JSON format:\n";

function toolListMessage(tools: readonly ToolSchema[]): string {
  const list = tools.map((tool) => JSON.stringify(tool, null, 4)).join("\n\n");
  return `${TOOL_INSTRUCTIONS}${list}\n\nReturn function calls in JSON format.`;
}

interface CallLike {
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown };
}

function argumentsOf(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** One call as Meta's JSON tool-calling format writes it (`{"name": ..., "parameters": ...}`). */
export function llama31ToolCall(name: string, parameters: unknown): string {
  return `${LLAMA31.pythonTag}${pythonJson({ name, parameters })}`;
}

/** An assistant message's body and the token that ends it. */
function assistantBody(message: ChatTemplateMessage): string {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as CallLike[]) : [];
  if (calls.length > 0) {
    const body = calls
      .map((call) =>
        llama31ToolCall(String(call.function?.name ?? ""), argumentsOf(call.function?.arguments)),
      )
      .join("");
    return `${body}${LLAMA31.endOfMessage}`;
  }
  const content = message.content;
  const end = content.startsWith(LLAMA31.pythonTag) ? LLAMA31.endOfMessage : LLAMA31.endOfTurn;
  return `${content}${end}`;
}

function messageText(message: ChatTemplateMessage): string {
  if (message.role === "assistant") return LLAMA31.header("assistant") + assistantBody(message);
  const role = message.role === "tool" ? "ipython" : message.role;
  return `${LLAMA31.header(role)}${message.content}${LLAMA31.endOfTurn}`;
}

export function renderLlama31(
  messages: readonly ChatTemplateMessage[],
  options: ChatTemplateOptions = {},
): string {
  const tools = options.tools ?? [];
  let text = LLAMA31.begin;
  let rest = messages;
  const first = messages[0];
  const system = first?.role === "system" ? first.content : undefined;
  if (system !== undefined) rest = messages.slice(1);
  if (tools.length > 0 || system !== undefined) {
    const environment = tools.length > 0 ? "Environment: ipython\n\n" : "";
    text += `${LLAMA31.header("system")}${environment}${system ?? ""}${LLAMA31.endOfTurn}`;
  }
  let listedTools = tools.length === 0;
  for (const message of rest) {
    if (!listedTools && message.role === "user") {
      text += `${LLAMA31.header("user")}${toolListMessage(tools)}${LLAMA31.endOfTurn}`;
      listedTools = true;
    }
    text += messageText(message);
  }
  if (options.addGenerationPrompt) text += LLAMA31.header("assistant");
  return text;
}

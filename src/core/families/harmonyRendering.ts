import type { ChatTemplateMessage, ChatTemplateOptions, ToolSchema } from "../tokenizer/types";
import { type HarmonyMessage, parseHarmonyMessages } from "../toolcalls/harmony";

/**
 * OpenAI's Harmony format for gpt-oss, written from its specification (openai/harmony:docs/format.md),
 * for the npm tokenizer that ships no chat template:
 *
 * - a message is `<|start|>HEADER<|message|>CONTENT<|end|>`, with no text between messages;
 * - the system message names the model, knowledge cutoff, reasoning effort and valid channels (and
 *   routes function calls to `commentary`); the developer message holds the instructions (our
 *   `system` content) and the functions as a TypeScript-like `namespace functions`;
 * - an assistant message is `<|start|>assistant<|channel|>CHANNEL…`; a function call is
 *   `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>ARGS<|call|>`;
 * - a tool result is `<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>…<|end|>`;
 * - in history, a turn's closing `<|return|>` is written `<|end|>`, and the analysis of a turn that
 *   ended in a `final` message is dropped once a later user message follows (calls keep theirs);
 * - the generation prompt is `<|start|>assistant`.
 */

const SYSTEM =
  "You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\n" +
  "Reasoning: medium\n\n" +
  "# Valid channels: analysis, commentary, final. Channel must be included for every message.";
const FUNCTIONS_NOTE = "\nCalls to these tools must go to the commentary channel: 'functions'.";

export const HARMONY_GENERATION_PROMPT = "<|start|>assistant";

function message(header: string, content: string, end = "<|end|>"): string {
  return `<|start|>${header}<|message|>${content}${end}`;
}

function schemaType(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "any";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  switch (s.type) {
    case "string":
    case "boolean":
      return s.type;
    case "number":
    case "integer":
      return "number";
    case "array":
      return `${schemaType(s.items)}[]`;
    default:
      return "any";
  }
}

function functionType(tool: ToolSchema): string {
  const { name, description, parameters } = tool.function;
  const comment = description ? `// ${description}\n` : "";
  const properties = (parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(parameters.required) ? parameters.required : []);
  const names = Object.keys(properties);
  if (names.length === 0) return `${comment}type ${name} = () => any;\n\n`;
  const fields = names.map((key) => {
    const prop = properties[key] ?? {};
    const doc = typeof prop.description === "string" ? `// ${prop.description}\n` : "";
    const fallback = prop.default === undefined ? "" : ` // default: ${String(prop.default)}`;
    return `${doc}${key}${required.has(key) ? "" : "?"}: ${schemaType(prop)},${fallback}\n`;
  });
  return `${comment}type ${name} = (_: {\n${fields.join("")}}) => any;\n\n`;
}

function developerMessage(system: string | undefined, tools: readonly ToolSchema[]): string {
  const parts: string[] = [];
  if (system !== undefined) parts.push(`# Instructions\n\n${system}`);
  if (tools.length > 0) {
    const types = tools.map(functionType).join("");
    parts.push(
      `# Tools\n\n## functions\n\nnamespace functions {\n\n${types}} // namespace functions`,
    );
  }
  return parts.length === 0 ? "" : message("developer", parts.join("\n\n"));
}

interface CallLike {
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown };
}

/** An assistant message as Harmony messages: raw model text, or `thinking` + `content` + `tool_calls`. */
function assistantParts(m: ChatTemplateMessage): HarmonyMessage[] {
  const content = m.content;
  if (content.includes("<|channel|>")) return parseHarmonyMessages(content);
  const parts: HarmonyMessage[] = [];
  const thinking = m.thinking ?? m.reasoning_content;
  const at: readonly [number, number] = [0, 0];
  if (typeof thinking === "string" && thinking !== "") {
    parts.push({ channel: "analysis", body: thinking, end: "<|end|>", span: at });
  }
  const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as CallLike[]) : [];
  for (const call of calls) {
    const args = call.function?.arguments;
    parts.push({
      channel: "commentary",
      recipient: `functions.${String(call.function?.name ?? "")}`,
      constrain: "json",
      body: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      end: "<|call|>",
      span: at,
    });
  }
  if (content !== "" || parts.length === 0) {
    parts.push({ channel: "final", body: content, end: "<|end|>", span: at });
  }
  return parts;
}

/** One assistant message in history: `<|return|>` written as `<|end|>`, a cut message closed. */
function renderPart(part: HarmonyMessage): string {
  const to = part.recipient === undefined ? "" : ` to=${part.recipient}`;
  const constrain = part.constrain === undefined ? "" : ` <|constrain|>${part.constrain}`;
  const end = part.end === "<|call|>" ? "<|call|>" : "<|end|>";
  return message(`assistant<|channel|>${part.channel}${to}${constrain}`, part.body, end);
}

/** Per message index: does its turn end in a `final` message that a later user message follows? */
function finishedTurns(messages: readonly ChatTemplateMessage[]): boolean[] {
  const finished: boolean[] = new Array(messages.length).fill(false);
  let userLater = false;
  let ended = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "user") {
      userLater = true;
      ended = false;
    } else if (m?.role === "assistant") {
      if (userLater && assistantParts(m).some((p) => p.channel === "final")) ended = true;
      finished[i] = ended;
    }
  }
  return finished;
}

function toolName(m: ChatTemplateMessage, index: number): string {
  if (typeof m.name === "string" && m.name !== "") return m.name;
  throw new Error(
    `Harmony rendering: messages[${index}] (role ${m.role}) has no "name": a tool result is written as functions.NAME`,
  );
}

export function renderHarmony(
  messages: readonly ChatTemplateMessage[],
  options: ChatTemplateOptions = {},
): string {
  const tools = options.tools ?? [];
  let rest = messages;
  const first = messages[0];
  const system =
    first?.role === "system" || first?.role === "developer" ? first.content : undefined;
  if (system !== undefined) rest = messages.slice(1);
  let text = message("system", SYSTEM + (tools.length > 0 ? FUNCTIONS_NOTE : ""));
  text += developerMessage(system, tools);
  const finished = finishedTurns(rest);
  rest.forEach((m, i) => {
    if (m.role === "assistant") {
      const parts = assistantParts(m).filter((p) => !(finished[i] && p.channel === "analysis"));
      text += parts.map(renderPart).join("");
    } else if (m.role === "tool") {
      const name = toolName(m, i + (system === undefined ? 0 : 1));
      text += message(`functions.${name} to=assistant<|channel|>commentary`, m.content);
    } else {
      text += message(m.role, m.content);
    }
  });
  if (options.addGenerationPrompt) text += HARMONY_GENERATION_PROMPT;
  return text;
}

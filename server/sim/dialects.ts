import { familyById } from "../../src/core/families/families";
import { llama31ToolCall } from "../../src/core/families/llama31Rendering";
import { pythonJson } from "../../src/core/families/pythonJson";
import type { FamilyId } from "../../src/core/families/types";

/**
 * How the simulated model reads and writes one family's chat format: the turns of a decoded
 * prompt, and a tool call, a thought and an answer in the family's own syntax with its own stop
 * tokens (core/families describes the format; this is the model's side of it).
 */

export interface ChatTurn {
  readonly role: string;
  readonly content: string;
}

export interface Dialect {
  /** The conversation of a decoded prompt, in order. */
  turns(prompt: string): ChatTurn[];
  /** Tool names the prompt declares, in order. */
  toolNames(turns: readonly ChatTurn[]): string[];
  /** True for a turn that only lists tools (Llama 3.1's functions message), never the question. */
  isToolList(turn: ChatTurn): boolean;
  /** A tool call; undefined when the family's template cannot render tools (answer instead). */
  toolCall?(name: string, args: Readonly<Record<string, string>>): string;
  /** The token ending a tool-call turn. */
  readonly callStop: string;
  /** Reasoning before the call or answer ("" where the family writes none). */
  think(thought: string, isThinkingDisabled: boolean): string;
  /** The answer's text as the family writes it (gpt-oss: the final channel). */
  answer(text: string): string;
  /** The token ending an answer. */
  readonly answerStop: string;
}

function stop(family: FamilyId, index = 0): string {
  const text = familyById(family)?.stopTokens[index]?.text;
  if (text === undefined) throw new Error(`family ${family} has no stop token ${index}`);
  return text;
}

function matches(
  prompt: string,
  pattern: RegExp,
  role: (m: RegExpMatchArray) => string,
): ChatTurn[] {
  return [...prompt.matchAll(pattern)].map((m) => ({ role: role(m), content: m[2] ?? "" }));
}

function jsonNames(turns: readonly ChatTurn[], where: (t: ChatTurn) => boolean): string[] {
  const names: string[] = [];
  for (const turn of turns.filter(where)) {
    for (const match of turn.content.matchAll(/"name":\s*"([^"]+)"/g)) {
      if (match[1] && !names.includes(match[1])) names.push(match[1]);
    }
  }
  return names;
}

function chatMlTurns(prompt: string): ChatTurn[] {
  const turns: ChatTurn[] = [];
  for (const part of prompt.split("<|im_start|>").slice(1)) {
    const newline = part.indexOf("\n");
    const role = newline < 0 ? part.trim() : part.slice(0, newline).trim();
    const body = newline < 0 ? "" : part.slice(newline + 1);
    const end = body.indexOf("<|im_end|>");
    turns.push({ role, content: end < 0 ? body : body.slice(0, end) });
  }
  return turns;
}

const noThoughts = () => "";
const plain = (text: string) => text;

const qwen3: Dialect = {
  turns: chatMlTurns,
  // Every <tools> block: Qwen's template also mentions an empty "<tools></tools>" in its prose.
  toolNames: (turns) =>
    jsonNames(
      turns
        .filter((t) => t.role === "system")
        .flatMap((t) => [...t.content.matchAll(/<tools>([\s\S]*?)<\/tools>/g)])
        .map((m) => ({ role: "system", content: m[1] ?? "" })),
      () => true,
    ),
  isToolList: () => false,
  // Python's json.dumps spacing, which is what Hermes-style chat templates and models produce.
  toolCall: (name, args) => `<tool_call>\n${pythonJson({ name, arguments: args })}\n</tool_call>`,
  callStop: stop("qwen3"),
  think: (thought, disabled) => (disabled ? "" : `<think>\n${thought}\n</think>\n\n`),
  answer: plain,
  answerStop: stop("qwen3"),
};

const LLAMA_TURN =
  /<\|start_header_id\|>(\w+)<\|end_header_id\|>\n\n([\s\S]*?)(?=<\|eot_id\|>|<\|eom_id\|>|<\|start_header_id\|>|$)/g;
const FUNCTION_LIST = "Here is a list of functions in JSON format";

const llama3: Dialect = {
  turns: (prompt) => matches(prompt, LLAMA_TURN, (m) => m[1] ?? ""),
  toolNames: () => [],
  isToolList: () => false,
  callStop: stop("llama3"),
  think: noThoughts,
  answer: plain,
  answerStop: stop("llama3"),
};

const llama3_1: Dialect = {
  ...llama3,
  toolNames: (turns) =>
    jsonNames(turns, (t) => t.role === "user" && t.content.includes(FUNCTION_LIST)),
  isToolList: (turn) => turn.role === "user" && turn.content.includes(FUNCTION_LIST),
  toolCall: (name, args) => llama31ToolCall(name, args),
  callStop: "<|eom_id|>",
  answerStop: stop("llama3_1"),
};

const DEEPSEEK_TURN =
  /(<｜User｜>|<｜tool▁output▁begin｜>)([\s\S]*?)(?=<｜Assistant｜>|<｜User｜>|<｜tool▁output▁end｜>|<｜end▁of▁sentence｜>|$)/g;

const deepseek_v3: Dialect = {
  turns: (prompt) =>
    matches(prompt, DEEPSEEK_TURN, (m) => (m[1] === "<｜User｜>" ? "user" : "tool")),
  // DeepSeek-V3's template renders no tool schemas: the policy calls its default tool.
  toolNames: () => [],
  isToolList: () => false,
  toolCall: (name, args) =>
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${pythonJson(args)}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  callStop: stop("deepseek_v3"),
  think: noThoughts,
  answer: plain,
  answerStop: stop("deepseek_v3"),
};

const HARMONY_TURN =
  /<\|start\|>([^<\s]+)[^<]*(?:<\|channel\|>[^<]*)?<\|message\|>([\s\S]*?)(?=<\|end\|>|<\|call\|>|<\|return\|>|$)/g;

const gptoss: Dialect = {
  turns: (prompt) =>
    matches(prompt, HARMONY_TURN, (m) => {
      const role = m[1] ?? "";
      return role.startsWith("functions.") ? "tool" : role;
    }),
  toolNames: (turns) =>
    turns
      .filter((t) => t.role === "developer")
      .flatMap((t) => [...t.content.matchAll(/^type (\w+) =/gm)].map((m) => m[1] ?? "")),
  isToolList: () => false,
  // The first message's `<|start|>assistant` is the generation prompt; later ones are written out.
  toolCall: (name, args) =>
    `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${JSON.stringify(args)}`,
  callStop: stop("gptoss", 1),
  think: (thought) => `<|channel|>analysis<|message|>${thought}<|end|><|start|>assistant`,
  answer: (text) => `<|channel|>final<|message|>${text}`,
  answerStop: stop("gptoss"),
};

const GEMMA_TURN = /<start_of_turn>(\w+)\n([\s\S]*?)(?=<end_of_turn>|$)/g;

const gemma3: Dialect = {
  turns: (prompt) => matches(prompt, GEMMA_TURN, (m) => m[1] ?? ""),
  toolNames: () => [],
  isToolList: () => false,
  callStop: stop("gemma3"),
  think: noThoughts,
  answer: plain,
  answerStop: stop("gemma3"),
};

const DIALECTS: Readonly<Record<FamilyId, Dialect>> = {
  qwen3,
  llama3,
  llama3_1,
  deepseek_v3,
  gptoss,
  gemma3,
};

/** The dialect of a family; Qwen's ChatML when the tokenizer's family is unknown. */
export function dialectOf(family: FamilyId | undefined): Dialect {
  return family === undefined ? qwen3 : DIALECTS[family];
}

/** What a scripted policy needs to know about the conversation so far. */
export interface PromptView {
  /** The last user message that is not a tool result; the whole text when the prompt is not chat. */
  readonly question: string;
  /** Contents of the `<tool_response>` blocks that came after `question`, oldest first. */
  readonly toolResults: readonly string[];
  /** Tool names declared in the system prompt's `<tools>` block, in order. */
  readonly toolNames: readonly string[];
  /** True when the generation prompt already closed an empty think block (thinking disabled). */
  readonly isThinkingDisabled: boolean;
}

interface ChatTurn {
  readonly role: string;
  readonly content: string;
}

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;

function splitTurns(prompt: string): ChatTurn[] {
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

function declaredToolNames(turns: readonly ChatTurn[]): string[] {
  const names: string[] = [];
  for (const turn of turns) {
    if (turn.role !== "system") continue;
    // Every <tools> block: Qwen's template also mentions an empty "<tools></tools>" in its prose.
    for (const block of turn.content.matchAll(/<tools>([\s\S]*?)<\/tools>/g)) {
      for (const match of (block[1] ?? "").matchAll(/"name":\s*"([^"]+)"/g)) {
        if (match[1] && !names.includes(match[1])) names.push(match[1]);
      }
    }
  }
  return names;
}

/** Reads a decoded ChatML (Qwen) prompt back into the few facts the policies act on. */
export function viewPrompt(prompt: string): PromptView {
  const turns = splitTurns(prompt);
  const isThinkingDisabled = /<think>\s*<\/think>\s*$/.test(prompt);
  if (turns.length === 0) {
    return { question: prompt, toolResults: [], toolNames: [], isThinkingDisabled };
  }
  let question = "";
  let toolResults: string[] = [];
  for (const turn of turns) {
    const results = [...turn.content.matchAll(TOOL_RESPONSE)].map((m) => (m[1] ?? "").trim());
    if (turn.role === "tool" || (turn.role === "user" && results.length > 0)) {
      toolResults.push(...(results.length > 0 ? results : [turn.content.trim()]));
    } else if (turn.role === "user") {
      question = turn.content.trim();
      toolResults = [];
    }
  }
  return { question, toolResults, toolNames: declaredToolNames(turns), isThinkingDisabled };
}

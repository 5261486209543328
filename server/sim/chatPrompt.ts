import type { FamilyId } from "../../src/core/families/types";
import { type ChatTurn, dialectOf } from "./dialects";

/** What a scripted policy needs to know about the conversation so far. */
export interface PromptView {
  /** The last user message that is not a tool result; the whole text when the prompt is not chat. */
  readonly question: string;
  /** Tool results that came after `question`, oldest first. */
  readonly toolResults: readonly string[];
  /** Tool names the prompt declares, in order. */
  readonly toolNames: readonly string[];
  /** True when the generation prompt already closed an empty think block (thinking disabled). */
  readonly isThinkingDisabled: boolean;
  /** The tokenizer's family: which syntax the policy writes (Qwen's when unknown). */
  readonly family?: FamilyId | undefined;
}

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;
const TOOL_ROLES = new Set(["tool", "ipython"]);

function resultsOf(turn: ChatTurn): string[] {
  const results = [...turn.content.matchAll(TOOL_RESPONSE)].map((m) => (m[1] ?? "").trim());
  if (TOOL_ROLES.has(turn.role)) return results.length > 0 ? results : [turn.content.trim()];
  return turn.role === "user" ? results : [];
}

/** Reads a decoded prompt of `family` (ChatML when unknown) back into the few facts the policies act on. */
export function viewPrompt(prompt: string, family?: FamilyId): PromptView {
  const dialect = dialectOf(family);
  const turns = dialect.turns(prompt);
  const isThinkingDisabled = /<think>\s*<\/think>\s*$/.test(prompt);
  if (turns.length === 0) {
    return { question: prompt, toolResults: [], toolNames: [], isThinkingDisabled, family };
  }
  let question = "";
  let toolResults: string[] = [];
  for (const turn of turns) {
    const results = resultsOf(turn);
    if (results.length > 0) toolResults.push(...results);
    else if (turn.role === "user" && !dialect.isToolList(turn)) {
      question = turn.content.trim();
      toolResults = [];
    }
  }
  return { question, toolResults, toolNames: dialect.toolNames(turns), isThinkingDisabled, family };
}

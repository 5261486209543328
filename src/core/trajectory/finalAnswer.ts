import type { Trajectory } from "./types";

// Chat-template specials like <|im_end|> or <|eot_id|>, and reasoning / tool-call blocks.
const SPECIAL = /<\|[a-z_]+\|>/g;
const THINK = /<think>[\s\S]*?(<\/think>|$)/g;
const TOOL_CALL = /<tool_call>[\s\S]*?(<\/tool_call>|$)/g;

/**
 * The visible answer of the last model segment: its text without reasoning, tool-call markup and
 * chat-template special tokens; undefined when the last model turn has no text left.
 */
export function finalAnswer(trajectory: Trajectory): string | undefined {
  const last = trajectory.segments.findLast((s) => s.kind === "model");
  const text = last?.text?.replace(THINK, "").replace(TOOL_CALL, "").replace(SPECIAL, "").trim();
  return text ? text : undefined;
}

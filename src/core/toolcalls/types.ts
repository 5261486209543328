import type { ToolCall } from "../trajectory/types";

/** Name used for a call whose tool name could not be recovered (strands-sglang's convention). */
export const UNKNOWN_TOOL = "unknown_tool";

/** Turns one model response's text into tool calls; spans are character offsets of that text. */
export interface ToolCallParser {
  readonly name: string;
  parse(text: string): ToolCall[];
}

/** Per-response call id: `call_0000`, `call_0001`, … (restarts in every response). */
export function callId(index: number): string {
  return `call_${String(index).padStart(4, "0")}`;
}

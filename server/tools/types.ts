import { z } from "zod";
import type { ToolSchema } from "../../src/core/tokenizer/types";

/** What a running tool may use: the episode's abort signal and, for the human tool, a way to ask. */
export interface ToolContext {
  readonly episodeId: string;
  readonly signal: AbortSignal;
  /** Scripted replies the episode request supplied, by tool name (for the mock tool). */
  readonly mockReplies: Readonly<Record<string, readonly string[]>>;
  /** Asks the researcher in the browser; resolves with their reply. */
  readonly askHuman: (question: string, signal: AbortSignal) => Promise<string>;
}

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Per-call time limit in ms (default: the registry's). */
  readonly timeoutMs?: number;
  run(args: Readonly<Record<string, unknown>>, context: ToolContext): Promise<string>;
}

/** Shape a user module's exported tools must have (checked when `--tools` loads it). */
export const userToolSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, "a name of letters, digits, _ . -"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive().optional(),
  run: z.custom<ToolDefinition["run"]>((v) => typeof v === "function", "run must be a function"),
});

/** The chat-template form of a tool. */
export function toToolSchema(tool: ToolDefinition): ToolSchema {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

import type { ToolDefinition } from "./types";

/**
 * A scripted tool: its replies come from the episode request (`mock_replies.<name>`), one per call
 * in order; the last reply repeats once the script runs out.
 */
export function createMockTool(name = "mock"): ToolDefinition {
  const calls = new Map<string, number>();
  return {
    name,
    description: "A scripted tool whose replies are given in the episode request.",
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: "Anything; the reply is scripted." } },
    },
    async run(_args, context) {
      const script = context.mockReplies[name] ?? [];
      if (script.length === 0)
        throw new Error(`no scripted reply for tool "${name}" in this episode`);
      const n = calls.get(context.episodeId) ?? 0;
      calls.set(context.episodeId, n + 1);
      return script[Math.min(n, script.length - 1)] ?? "";
    },
  };
}

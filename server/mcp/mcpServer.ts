import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RuntimeOptions } from "./mcpRuntime";
import { MCP_TOOLS } from "./toolSpecs";
import type { McpRuntime, ToolContext } from "./toolTypes";

export { MCP_TOOLS };

/** Characters of JSON one answer may hold; a bigger one asks for a smaller page. */
export const MAX_ANSWER_CHARS = 400_000;

export interface McpOptions extends RuntimeOptions {
  /** The app's base URL for links. */
  readonly appUrl: string;
}

function answer(name: string, value: unknown): CallToolResult {
  const text = JSON.stringify(value);
  if (text.length > MAX_ANSWER_CHARS) {
    return failure(
      `${name}: the answer is ${text.length} characters, over ${MAX_ANSWER_CHARS}: ask for a smaller page (limit, count)`,
    );
  }
  return { content: [{ type: "text", text }] };
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/**
 * The tools' context: the runtime (files, tokenizers, checks) is built on the first tool call, so
 * answering `initialize` loads only the SDK and the tools' schemas.
 */
export function createToolContext(options: McpOptions): ToolContext & { close(): Promise<void> } {
  let runtime: Promise<McpRuntime & { close(): Promise<void> }> | undefined;
  const load = () => {
    runtime ??= import("./mcpRuntime").then((m) => m.createMcpRuntime(options));
    return runtime;
  };
  return {
    appUrl: options.appUrl.replace(/\/+$/, ""),
    runtime: load,
    close: async () => {
      if (runtime) await (await runtime).close();
    },
  };
}

/** An MCP server whose tools answer token-level questions about `ctx`'s files (docs/agents.md). */
export function createMcpServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer(
    { name: "rollout-lens", version },
    {
      instructions:
        "Rollout Lens reads RL rollout files token by token. Start with list_files, then describe_file; rows are 0-based as in the app, and every answer links into the app.",
    },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input },
      async (args: Record<string, unknown>) => {
        try {
          const run = await tool.load();
          return answer(tool.name, await run(args, await ctx.runtime(), ctx));
        } catch (error) {
          return failure(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    );
  }
  return server;
}

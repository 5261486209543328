import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createDriftTokenizers, type DriftTokenizers } from "../drift/driftTokenizers";
import { createFileRegistry } from "../files/fileRegistry";
import { CHECK_TOOLS } from "./checkTools";
import { FILE_TOOLS } from "./fileTools";
import { createMcpChecks } from "./mcpChecks";
import { createMcpFiles } from "./mcpFiles";
import type { McpTool, ToolContext } from "./toolTypes";

/** Characters of JSON one answer may hold; a bigger one asks for a smaller page. */
export const MAX_ANSWER_CHARS = 400_000;

export const MCP_TOOLS: readonly McpTool[] = [...FILE_TOOLS, ...CHECK_TOOLS];

export interface McpOptions {
  /** Files and run directories, as `view` takes them. */
  readonly files: readonly string[];
  /** Where `episodes.jsonl` is (listed as the file `episodes`). */
  readonly dataDir: string;
  readonly map?: string;
  /** `--tokenizer`: overrides each file's choice. */
  readonly tokenizer?: string;
  /** The app's base URL for links. */
  readonly appUrl: string;
  readonly version: string;
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

/** The tool context of one server's files: one registry, tokenizers and check cache for all sessions. */
export function createToolContext(options: McpOptions): ToolContext & { close(): Promise<void> } {
  const registry = createFileRegistry(options.files, options.dataDir, {
    ...(options.map === undefined ? {} : { map: options.map }),
  });
  const tokenizers: DriftTokenizers = createDriftTokenizers({ jobs: 1 });
  const files = createMcpFiles(registry, tokenizers, options.tokenizer);
  return {
    files,
    checks: createMcpChecks(files),
    appUrl: options.appUrl.replace(/\/+$/, ""),
    close: () => tokenizers.close(),
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
          return answer(tool.name, await tool.run(args, ctx));
        } catch (error) {
          return failure(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    );
  }
  return server;
}

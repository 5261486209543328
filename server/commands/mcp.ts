import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { parseMapSpec } from "../../src/core/formats/columnMapping";
import { createMcpServer, createToolContext } from "../mcp/mcpServer";
import type { McpFlags, ParsedArgs } from "./commandFlags";
import { describeViewPaths } from "./view";

/**
 * Says on stderr what each argument contributes, as `view` does: a directory's step files, the
 * files left out, a file not there yet. A directory holding no step file is an error (exit 2),
 * never a server whose list_files silently lacks it. Returns the error, if any.
 */
export function describeMcpPaths(
  paths: readonly string[],
  err: (text: string) => void,
): string | undefined {
  try {
    describeViewPaths(paths, (text) => err(`rollout-lens mcp: ${text}`));
    return undefined;
  } catch (error) {
    return `rollout-lens mcp: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * `rollout-lens mcp [FILE|DIR...]`: the MCP tools over stdio (docs/agents.md). Exits when the
 * client closes stdin; stdout carries only the protocol, words for the user go to stderr.
 */
export async function runMcp({ values, positionals }: ParsedArgs<McpFlags>, version: string) {
  if (values.map !== undefined) {
    const parsed = parseMapSpec(values.map);
    if (!parsed.ok) {
      process.stderr.write(`rollout-lens mcp: --map: ${parsed.message}\n`);
      process.exit(2);
    }
  }
  const problem = describeMcpPaths(positionals, (t) => process.stderr.write(`${t}\n`));
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n`);
    process.exit(2);
  }
  const ctx = createToolContext({
    files: positionals,
    dataDir: values.data,
    appUrl: values.appUrl,
    ...(values.map === undefined ? {} : { map: values.map }),
    ...(values.tokenizer === undefined ? {} : { tokenizer: values.tokenizer }),
    ...(values.sglang === undefined
      ? {}
      : {
          sglang: values.sglang
            .split(",")
            .map((u) => u.trim())
            .filter(Boolean),
        }),
  });
  const server = createMcpServer(ctx, version);
  const transport = new StdioServerTransport();
  transport.onclose = () => {
    void ctx.close().finally(() => process.exit(0));
  };
  process.stdin.on("end", () => transport.onclose?.());
  await server.connect(transport);
}

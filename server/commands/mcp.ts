import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { parseMapSpec } from "../../src/core/formats/columnMapping";
import { createMcpServer, createToolContext } from "../mcp/mcpServer";
import type { McpFlags, ParsedArgs } from "./commandFlags";

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

// The MCP server of `rollout-lens mcp` with an SDK client on an in-memory transport: what the
// server/mcp tests drive the tools through, as a coding agent would.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, createToolContext, type McpOptions } from "../server/mcp/mcpServer";

export interface McpTestClient {
  readonly client: Client;
  /** Closes the client, then the tools' runtime (its file readers and worker threads). */
  close(): Promise<void>;
}

/** A connected client of a fresh MCP server over `options` (the files it may read, its data dir). */
export async function connectMcp(options: McpOptions, name = "test"): Promise<McpTestClient> {
  const ctx = createToolContext(options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(ctx, "0").connect(a);
  const client = new Client({ name, version: "0" });
  await client.connect(b);
  return {
    client,
    close: async () => {
      await client.close();
      await ctx.close();
    },
  };
}

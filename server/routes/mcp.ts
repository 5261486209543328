import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { createMcpServer, createToolContext, type McpOptions } from "../mcp/mcpServer";

/**
 * `/mcp`: the `rollout-lens mcp` tools over MCP's streamable HTTP, stateless (a server and a
 * transport per request, one file catalog for all), behind the app's Host, Origin and token
 * guards (docs/security.md). Links in the answers point at the origin the request came to.
 */
export function mcpRoutes(options: Omit<McpOptions, "appUrl"> & { readonly version: string }) {
  const shared = createToolContext({ ...options, appUrl: "" });
  return new Hono().on(["GET", "POST", "DELETE"], "/", async (c) => {
    const ctx = { ...shared, appUrl: new URL(c.req.url).origin };
    const server = createMcpServer(ctx, options.version);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { buildApp } from "./app";
import type { ServerConfig } from "./config";

const distDir = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");

/** Starts the server on the configured port and shuts it down on SIGINT/SIGTERM. */
export async function startServer(config: ServerConfig): Promise<void> {
  const app = buildApp(config);
  if (existsSync(distDir)) {
    app.use("/*", serveStatic({ root: distDir }));
    app.get("*", serveStatic({ path: join(distDir, "index.html") }));
  }
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  console.log(`Rollout Lens on http://${config.host}:${config.port}`);
  const shutdown = () => server.close(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

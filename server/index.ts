import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { buildApp } from "./app";
import type { ServerConfig } from "./config";
import { createServices } from "./services";

const distDir = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");

/** Starts the server on the configured port and shuts it down on SIGINT/SIGTERM. */
export async function startServer(config: ServerConfig): Promise<void> {
  const services = await createServices(config);
  const app = buildApp(services);
  if (existsSync(distDir)) {
    app.use("/*", serveStatic({ root: distDir }));
    // Client-side routes get the app; unknown API paths and missing assets stay 404s.
    app.get("*", async (c, next) => {
      if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/assets/")) return next();
      return serveStatic({ path: join(distDir, "index.html") })(c, next);
    });
  }
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const upstream = services.isSimulated
    ? "the embedded SGLang simulator"
    : config.sglang.join(", ");
  console.log(`Rollout Lens on http://${config.host}:${config.port} (model: ${upstream})`);
  const shutdown = () => {
    void services.close().finally(() => server.close(() => process.exit(0)));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

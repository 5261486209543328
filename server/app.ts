import { Hono } from "hono";
import type { ServerConfig } from "./config";
import { filesRoutes } from "./routes/files";

/** Builds the HTTP app (middleware + routes); tests call it without a port. */
export function buildApp(config: ServerConfig) {
  const app = new Hono();
  app.get("/api/health", (c) =>
    c.json({ ok: true, upstream: config.sglang.length > 0 ? config.sglang : "simulator" }),
  );
  app.route("/api/files", filesRoutes({ files: config.files, dataDir: config.data }));
  return app;
}

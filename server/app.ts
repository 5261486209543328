import { Hono } from "hono";
import type { ServerConfig } from "./config";
import { tokenizerRoutes } from "./routes/tokenizers";

/** Builds the HTTP app (middleware + routes); tests call it without a port. */
export function buildApp(config: ServerConfig) {
  const app = new Hono();
  app.get("/api/health", (c) =>
    c.json({ ok: true, upstream: config.sglang.length > 0 ? config.sglang : "simulator" }),
  );
  app.route("/api/tokenizers", tokenizerRoutes(config));
  return app;
}

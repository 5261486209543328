import { join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Hono, MiddlewareHandler } from "hono";

/** Decodes percent-escapes until stable (bounded), so `%252e%252e` is seen as `..` too. */
function fullyDecoded(path: string): string | undefined {
  let current = path;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (next === current) return current;
    current = next;
  }
  return undefined;
}

/** True when a request path could name anything outside the folder it is served from. */
export function isUnsafeStaticPath(path: string): boolean {
  const decoded = fullyDecoded(path);
  if (decoded === undefined) return true;
  return (
    decoded.includes("\0") ||
    decoded.includes("\\") ||
    /(^|\/)\.\.?(\/|$)/.test(decoded) ||
    /^\/*[a-zA-Z]:/.test(decoded) ||
    /\/\//.test(decoded)
  );
}

/** Refuses traversal attempts (plain, percent-encoded, double-encoded, backslashed) outright. */
export function traversalGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (isUnsafeStaticPath(c.req.path)) return c.text("bad path", 400);
    return next();
  };
}

/**
 * Serves the built app from `distDir` only; client-side routes get `index.html`, while unknown API
 * paths and missing assets stay 404s.
 */
export function mountStatic(app: Hono, distDir: string): void {
  app.use("/*", traversalGuard());
  app.use("/*", serveStatic({ root: distDir }));
  app.get("*", async (c, next) => {
    if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/assets/")) return next();
    return serveStatic({ path: join(distDir, "index.html") })(c, next);
  });
}

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { mountStatic } from "./staticFiles";

/*
 * The web app's pages when the checkout has no build yet (a fresh clone run with `npx rollout-lens
 * view FILE` before `npm run build`): the API runs at once, the pages are built in the background
 * with the clone's own Vite, and every page request says so in the browser (it reloads itself)
 * instead of a bare 404 that only the log explains.
 */

type BuildState =
  | { readonly kind: "building" }
  | { readonly kind: "failed"; readonly reason: string }
  | { readonly kind: "none"; readonly reason: string };

/** The page a browser gets while there are no pages to serve: what is happening and what to do. */
export function noBuildPage(state: BuildState): string {
  const text =
    state.kind === "building"
      ? "Building the web app (the first start of a clone without <code>npm run build</code>); this page reloads itself when it is ready, usually within a minute. The API already runs."
      : `There is no web app build to serve: ${escapeHtml(state.reason)}. Run <code>npm run build</code> in the checkout, then reload. The API runs.`;
  const refresh = state.kind === "building" ? '<meta http-equiv="refresh" content="3">' : "";
  return `<!doctype html><html><head><meta charset="utf-8">${refresh}<title>Rollout Lens</title></head><body style="font-family:system-ui;margin:3rem;max-width:44rem"><h1>Rollout Lens</h1><p data-testid="no-build">${text}</p></body></html>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Vite's own entry in this checkout, when there is one to build with. */
function viteEntry(root: string): string | undefined {
  const entry = join(root, "node_modules", "vite", "bin", "vite.js");
  return existsSync(entry) && existsSync(join(root, "vite.config.ts")) ? entry : undefined;
}

/**
 * Serves `distDir` when it exists; otherwise starts `vite build` in `root` (when the checkout can)
 * and answers page requests with noBuildPage until the build lands, then serves it.
 */
export function mountAppPages(app: Hono, distDir: string, root: string): void {
  if (existsSync(join(distDir, "index.html"))) {
    mountStatic(app, distDir);
    return;
  }
  const vite = viteEntry(root);
  let state: BuildState | "ready" = vite
    ? { kind: "building" }
    : { kind: "none", reason: `${distDir} does not exist and this install cannot build it` };
  if (vite) {
    console.warn(`no web app build in ${distDir}: building it now (the API runs meanwhile)`);
    const child = spawn(process.execPath, [vite, "build", "--logLevel", "warn"], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-2000);
    });
    child.on("error", (error) => {
      state = { kind: "failed", reason: `vite build could not start (${error.message})` };
    });
    child.on("exit", (code) => {
      const built = code === 0 && existsSync(join(distDir, "index.html"));
      state = built ? "ready" : { kind: "failed", reason: `vite build failed: ${errors.trim()}` };
      console.warn(built ? "web app built: reload the page" : `web app build failed: ${errors}`);
    });
  }
  const pages = new Hono();
  mountStatic(pages, distDir);
  app.all("*", async (c, next) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/mcp") return next();
    if (state === "ready") return pages.fetch(c.req.raw);
    return c.html(noBuildPage(state), 503);
  });
}

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { mountAppPages } from "./appBuild";

function checkout(withVite: string | undefined): { root: string; dist: string } {
  const root = mkdtempSync(join(tmpdir(), "rl-appbuild-"));
  if (withVite !== undefined) {
    writeFileSync(join(root, "vite.config.ts"), "export default {};\n");
    mkdirSync(join(root, "node_modules", "vite", "bin"), { recursive: true });
    writeFileSync(join(root, "node_modules", "vite", "bin", "vite.js"), withVite);
  }
  return { root, dist: join(root, "dist") };
}

function appOf(root: string, dist: string): Hono {
  const app = new Hono();
  app.get("/api/health", (c) => c.json({ ok: true }));
  mountAppPages(app, dist, root);
  return app;
}

// A stand-in for `vite build`: it writes the page a moment later, as the real build does.
const FAKE_VITE = `
const { mkdirSync, writeFileSync } = require("node:fs");
setTimeout(() => {
  mkdirSync("dist", { recursive: true });
  writeFileSync("dist/index.html", "<!doctype html><title>built</title>");
}, 200);
`;

describe("the web app's pages in a checkout without a build", () => {
  it("are built in the background: pages say so (503, reloading), the API answers, then the build is served", async () => {
    const { root, dist } = checkout(FAKE_VITE);
    writeFileSync(join(root, "package.json"), '{"type":"commonjs"}');
    const app = appOf(root, dist);
    const first = await app.request("/files/f1/0");
    expect(first.status).toBe(503);
    const text = await first.text();
    expect(text).toContain("Building the web app");
    expect(text).toContain('http-equiv="refresh"');
    expect((await app.request("/api/health")).status).toBe(200);
    await expect
      .poll(async () => (await app.request("/files/f1/0")).status, { timeout: 10_000 })
      .toBe(200);
    expect(await (await app.request("/")).text()).toContain("<title>built</title>");
  });

  it("say what to run when the install cannot build them", async () => {
    const { root, dist } = checkout(undefined);
    const response = await appOf(root, dist).request("/");
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).toContain("npm run build");
    expect(text).not.toContain("refresh");
  });

  it("report a failed build with its error", async () => {
    const { root, dist } = checkout(
      'process.stderr.write("boom: bad config\\n"); process.exit(1);',
    );
    const app = appOf(root, dist);
    await expect
      .poll(async () => (await app.request("/")).text(), { timeout: 10_000 })
      .toContain("vite build failed: boom: bad config");
  });

  it("serve an existing build at once", async () => {
    const { root, dist } = checkout(undefined);
    mkdirSync(dist);
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>ready</title>");
    const response = await appOf(root, dist).request("/episodes");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("ready");
  });
});

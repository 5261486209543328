import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type AccessPolicy, isLoopbackHost, resolveAccess } from "./access";
import { applySecurity, hostOf } from "./middleware";
import { isUnsafeStaticPath, mountStatic } from "./staticFiles";

const TOKEN = "t0ken-for-tests-0123456789abcdef";

function policy(token?: string): AccessPolicy {
  return resolveAccess({
    host: "127.0.0.1",
    port: 4000,
    allowedHosts: [],
    requireToken: false,
    ...(token === undefined ? {} : { token }),
  });
}

function testApp(access: AccessPolicy, maxBodyBytes = 2048): Hono {
  const app = new Hono();
  applySecurity(app, access, { maxBodyBytes });
  app.get("/api/thing", (c) => c.json({ ok: true }));
  app.post("/api/thing", async (c) => c.json({ size: (await c.req.text()).length }));
  app.get("/api/thing/events", (c) => c.text("data: hi\n\n"));
  app.get("*", (c) => c.text("the app"));
  return app;
}

describe("resolveAccess", () => {
  it.each([
    { host: "127.0.0.1", requireToken: false, token: undefined, hasToken: false, generated: false },
    { host: "localhost", requireToken: false, token: undefined, hasToken: false, generated: false },
    { host: "0.0.0.0", requireToken: false, token: undefined, hasToken: true, generated: true },
    { host: "10.1.2.3", requireToken: false, token: undefined, hasToken: true, generated: true },
    { host: "127.0.0.1", requireToken: true, token: undefined, hasToken: true, generated: true },
    { host: "0.0.0.0", requireToken: false, token: TOKEN, hasToken: true, generated: false },
  ])("binding $host (require $requireToken, given $token)", (row) => {
    const access = resolveAccess({
      host: row.host,
      port: 1,
      allowedHosts: [],
      requireToken: row.requireToken,
      ...(row.token === undefined ? {} : { token: row.token }),
    });
    expect(access.token !== undefined).toBe(row.hasToken);
    expect(access.isGenerated).toBe(row.generated);
    if (row.token) expect(access.token).toBe(row.token);
    if (row.generated) expect(access.token?.length).toBeGreaterThanOrEqual(32);
  });

  it("two generated tokens differ", () => {
    const a = resolveAccess({ host: "0.0.0.0", port: 1, allowedHosts: [], requireToken: false });
    const b = resolveAccess({ host: "0.0.0.0", port: 1, allowedHosts: [], requireToken: false });
    expect(a.token).not.toBe(b.token);
  });

  it.each([
    ["127.0.0.1", true],
    ["127.8.9.1", true],
    ["::1", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["192.168.0.2", false],
    ["127.0.0.1.evil.example", false],
  ])("isLoopbackHost(%s) = %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe("Host header (DNS rebinding)", () => {
  const app = testApp(policy());
  it.each([
    ["localhost:4000", 200],
    ["127.0.0.1:4000", 200],
    ["127.0.0.1", 200],
    ["[::1]:4000", 200],
    ["LOCALHOST:4000", 200],
    ["evil.example", 403],
    ["evil.example:4000", 403],
    ["127.0.0.1.evil.example:4000", 403],
    ["localhost.evil.example", 403],
    ["10.0.0.1:4000", 403],
  ])("Host: %s → %i", async (host, status) => {
    const res = await app.request("/api/thing", { headers: { host } });
    expect(res.status).toBe(status);
    if (status === 403)
      expect(((await res.json()) as { error: string }).error).toContain(hostOf(host));
  });

  it("names given with --allowed-host are accepted", async () => {
    const access = resolveAccess({
      host: "127.0.0.1",
      port: 4000,
      allowedHosts: ["lens.lab.internal"],
      requireToken: false,
    });
    const res = await testApp(access).request("/api/thing", {
      headers: { host: "lens.lab.internal:443" },
    });
    expect(res.status).toBe(200);
  });
});

describe("cross-origin requests and CORS", () => {
  const app = testApp(policy());
  it.each([
    [{ origin: "http://evil.example" }, 403],
    [{ origin: "http://localhost:9999" }, 403],
    [{ "sec-fetch-site": "cross-site" }, 403],
    [{ origin: "http://localhost" }, 200],
    [{ "sec-fetch-site": "same-origin" }, 200],
  ])("%o → %i", async (headers, status) => {
    const res = await app.request("/api/thing", { headers });
    expect(res.status).toBe(status);
  });

  it("sends no CORS headers, even to a preflight", async () => {
    for (const method of ["GET", "OPTIONS"]) {
      const res = await app.request("/api/thing", {
        method,
        headers: { origin: "http://localhost", "access-control-request-method": "POST" },
      });
      for (const name of res.headers.keys()) expect(name).not.toMatch(/^access-control-/);
    }
  });

  it("sets the hardening headers (CSP without inline scripts, no framing, nosniff)", async () => {
    const res = await app.request("/");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("access token", () => {
  const access = policy(TOKEN);
  const app = testApp(access);
  const cookie = `${access.cookieName}=${TOKEN}`;

  it.each([
    ["no credentials", "/api/thing", {}, 401],
    ["wrong bearer", "/api/thing", { authorization: "Bearer nope" }, 401],
    ["bearer with a suffix", "/api/thing", { authorization: `Bearer ${TOKEN}x` }, 401],
    ["basic auth", "/api/thing", { authorization: `Basic ${TOKEN}` }, 401],
    ["right bearer", "/api/thing", { authorization: `Bearer ${TOKEN}` }, 200],
    ["cookie", "/api/thing", { cookie }, 200],
    ["cookie on the SSE stream", "/api/thing/events", { cookie }, 200],
    ["no cookie on the SSE stream", "/api/thing/events", {}, 401],
    ["query token on the API is not accepted", `/api/thing?token=${TOKEN}`, {}, 401],
    ["cookie of another port", "/api/thing", { cookie: `rollout_lens_token_1=${TOKEN}` }, 401],
    ["page without token", "/", {}, 401],
    ["page with cookie", "/demo/calculator", { cookie }, 200],
  ])("%s → %i", async (_name, path, headers, status) => {
    const res = await app.request(path, { headers });
    expect(res.status).toBe(status);
    if (status === 401) {
      const text = await res.text();
      expect(text).toContain("access token");
      expect(text).not.toContain(TOKEN);
    }
  });

  it("the startup URL sets an HttpOnly SameSite=Strict cookie and drops the token from the URL", async () => {
    const res = await app.request(`/demo/calculator?token=${TOKEN}&x=1`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/demo/calculator?x=1");
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toContain(`${access.cookieName}=${TOKEN}`);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\//);
  });

  it("a wrong startup token sets nothing", async () => {
    const res = await app.request("/?token=guess");
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("state-changing requests must be JSON (no simple-form CSRF)", () => {
  const app = testApp(policy());
  it.each([
    [undefined, 415],
    ["text/plain", 415],
    ["application/x-www-form-urlencoded", 415],
    ["multipart/form-data; boundary=x", 415],
    ["application/jsonp", 415],
    ["text/plain; application/json", 415],
    ["application/json", 200],
    ["application/json; charset=utf-8", 200],
  ])("Content-Type %s → %i", async (type, status) => {
    const res = await app.request("/api/thing", {
      method: "POST",
      headers: type === undefined ? {} : { "content-type": type },
      body: "{}",
    });
    expect(res.status).toBe(status);
  });

  it("accepts an action with no body and no Content-Type (`curl -XPOST .../abort`)", async () => {
    expect((await app.request("/api/thing", { method: "POST" })).status).toBe(200);
    const withBody = await app.request("/api/thing", {
      method: "POST",
      headers: { "content-length": "2" },
      body: new TextEncoder().encode("{}"),
    });
    expect(withBody.status).toBe(415);
  });
});

describe("request body cap", () => {
  const app = testApp(policy(), 2048);
  it("accepts a body at the limit and refuses one beyond it with 413", async () => {
    const ok = await app.request("/api/thing", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(2048),
    });
    expect(ok.status).toBe(200);
    const big = await app.request("/api/thing", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(2049),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: string }).error).toContain("2048 bytes");
  });

  it("counts a streamed body without Content-Length too", async () => {
    const chunk = new TextEncoder().encode("y".repeat(1000));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await app.request("/api/thing", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe("static files: only dist/, no traversal", () => {
  const root = mkdtempSync(join(tmpdir(), "rl-static-"));
  const dist = join(root, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), "<html>the app</html>");
  writeFileSync(join(dist, "assets", "app.js"), "console.log(1)");
  writeFileSync(join(root, "secret.txt"), "TOP SECRET");
  const app = new Hono();
  applySecurity(app, policy(), { maxBodyBytes: 2048 });
  mountStatic(app, dist);

  const attempts = [
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/secret.txt",
    "/%252e%252e/secret.txt",
    "/%25252e%25252e/secret.txt",
    "/..%2fsecret.txt",
    "/..%2Fsecret.txt",
    "/..%5csecret.txt",
    "/..\\secret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/assets/%2e%2e/%2e%2e/secret.txt",
    "/assets/%c0%ae%c0%ae/secret.txt",
    "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd",
    "//etc/passwd",
    "/assets//..//..//secret.txt",
    "/secret.txt%00.js",
    `/C:%5cWindows%5cwin.ini`,
  ];
  it.each(attempts)("%s never reaches a file outside dist/", async (path) => {
    const res = await app.request(`http://localhost${path}`);
    const text = await res.text();
    expect(text).not.toContain("TOP SECRET");
    // Refused outright, or at worst answered with the app shell (a client-side route).
    if (res.status === 200) expect(text).toBe("<html>the app</html>");
  });

  it.each([
    ["/%2e%2e/secret.txt", true],
    ["/%252e%252e/secret.txt", true],
    ["/..%5csecret.txt", true],
    ["/a/%00", true],
    ["/%E0%A4%A", true],
    ["/assets/app.js", false],
    ["/demo/calculator", false],
    ["/assets/a..b.js", false],
  ])("isUnsafeStaticPath(%s) = %s", (path, expected) => {
    expect(isUnsafeStaticPath(path)).toBe(expected);
  });

  it("still serves the app and its assets", async () => {
    expect(await (await app.request("/assets/app.js")).text()).toBe("console.log(1)");
    expect(await (await app.request("/demo/calculator")).text()).toBe("<html>the app</html>");
  });
});

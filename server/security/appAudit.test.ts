import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelClient } from "../agent/modelClient";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";

// The real app, in-process: caps on SSE streams, and audits that no request can make the server
// contact a URL or run a module that the command line did not name.
let services: Services;
let app: ReturnType<typeof buildApp>;
let canary: Server;
let canaryUrl = "";
let canaryHits = 0;
let releaseModel: () => void = () => {};
const modelGate = new Promise<void>((resolve) => {
  releaseModel = resolve;
});
const tmp = mkdtempSync(join(tmpdir(), "rl-audit-"));
const sentinel = join(tmp, "tool-module-ran");
const evilModule = join(tmp, "evil.mjs");

function held(client: ModelClient): ModelClient {
  return {
    ...client,
    async generate(request) {
      await modelGate;
      return client.generate(request);
    },
  };
}

function post(path: string, body: unknown) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  canary = createServer((_req, res) => {
    canaryHits++;
    res.end("{}");
  });
  canary.on("connection", () => canaryHits++);
  await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
  canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`; // a TCP listener
  writeFileSync(
    evilModule,
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(sentinel)}, "ran");\nexport default [];\n`,
  );
  const config = parseServerConfig({
    data: join(tmp, "data"),
    maxSseClients: 3,
    maxSsePerEpisode: 2,
  });
  services = await createServices(config, { wrapClient: held });
  app = buildApp(services);
});

afterAll(async () => {
  releaseModel();
  await services.close();
  await new Promise<void>((resolve) => canary.close(() => resolve()));
});

describe("the API surface", () => {
  it("has exactly the audited routes (a new route must be reviewed here for SSRF and paths)", () => {
    const routes = new Set(
      app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`),
    );
    expect([...routes].sort()).toEqual(
      [
        "GET /api/health",
        "GET /api/tokenizers",
        "GET /api/tokenizers/:name/:file",
        // Reviewed: the name goes through the catalog like :file's; the blob comes from lib/, the
        // cache (a file name hashed from the catalog's own path) or the folder's tokenizer.json.
        "GET /api/tokenizers/:name/compact",
        "POST /api/episodes",
        "GET /api/episodes",
        "GET /api/episodes/:id",
        "GET /api/episodes/:id/events",
        "POST /api/episodes/:id/abort",
        "POST /api/episodes/:id/human-reply",
        // Files are looked up by id in the list given at start; no path is built from a request
        // (server/routes/files.test.ts tries traversal, absolute paths and bad ranges).
        "GET /api/files",
        "GET /api/files/:fileId",
        "GET /api/files/:fileId/range",
        // Reviewed: looks the id up in the registry of files named at start, as the others do.
        "GET /api/files/:fileId/step-stats",
        // Rescoring sends ids only to the configured upstreams; the body (zod-checked, size-capped
        // by the middleware) names an episode, carries a record, or ids, never a URL or a path.
        "POST /api/rescore",
        // Reviewed: the bisect lab rescores through the same client and upstreams as rescore; the
        // body (zod-checked, strict, size-capped) names an episode or carries a record, and caps
        // the work it asks for (batch ≤ 256, top-k ≤ 1000, ≤ 4,096 decode calls); no URL, no path.
        "POST /api/bisect",
        // Reviewed: the MCP tools read only the files named at start, by id (as /api/files does),
        // take no URL or path from a request, and start nothing (server/mcp, docs/agents.md).
        "GET /mcp",
        "POST /mcp",
        "DELETE /mcp",
      ].sort(),
    );
  });
});

describe("SSE caps", () => {
  it("refuses streams beyond the per-episode (429) and total (503) caps and frees slots", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post("/api/episodes", { prompt: `hold ${i}` });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const [a = "", b = ""] = ids;
    const open: Response[] = [];
    const follow = async (id: string) => {
      const res = await app.request(`/api/episodes/${id}/events`);
      if (res.status === 200) open.push(res);
      return res;
    };
    expect((await follow(a)).status).toBe(200);
    expect((await follow(a)).status).toBe(200);
    const perEpisode = await follow(a);
    expect(perEpisode.status).toBe(429);
    expect(((await perEpisode.json()) as { error: string }).error).toContain(a);
    expect((await follow(b)).status).toBe(200);
    const total = await follow(b);
    expect(total.status).toBe(503);
    // Ending the episodes ends their streams and gives the slots back.
    releaseModel();
    const streams = await Promise.all(open.splice(0).map((res) => res.text()));
    for (const text of streams) expect(text).toContain("event: end");
    const again = await follow(a);
    expect(again.status).toBe(200);
    await again.text();
    console.log("SSE caps proved: 2 per episode (3rd → 429), 3 in total (4th → 503)");
  });
});

describe("no SSRF, no module loading through the API", () => {
  it("URLs and paths anywhere in a request are never contacted or imported", async () => {
    releaseModel();
    const bodies = [
      { prompt: canaryUrl, system: canaryUrl, policy: canaryUrl.slice(0, 64) },
      { prompt: "x", tools: [canaryUrl.slice(0, 64)] },
      { prompt: "x", tools: [evilModule.slice(-64)] },
      {
        prompt: "x",
        tools: ["calculator"],
        sampling_params: { url: canaryUrl, base_url: canaryUrl },
      },
      { prompt: "x", mock_replies: { [canaryUrl]: [canaryUrl] }, tools: ["mock"] },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await post("/api/episodes", body);
      expect(res.status, JSON.stringify(body)).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    for (const id of ids) {
      const text = await (await app.request(`/api/episodes/${id}/events`)).text();
      expect(text).toContain("event: end");
    }
    for (const path of [`/api/tokenizers/${encodeURIComponent(canaryUrl)}/tokenizer.json`]) {
      expect((await app.request(path)).status).toBe(404);
    }
    const unknownTool = await app.request(`/api/episodes/${ids[2]}`);
    expect(JSON.stringify(await unknownTool.json())).toContain("unknown tool");
    expect(canaryHits).toBe(0);
    expect(existsSync(sentinel)).toBe(false);
    expect([...services.registry.tools.keys()].sort()).toEqual(["ask_human", "calculator", "mock"]);
    console.log(`SSRF audit: ${bodies.length} hostile episode requests, 0 outbound connections`);
  });
});

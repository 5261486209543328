import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { resolveAccess } from "../security/access";
import { createServices, type Services } from "../services";

// The MCP tools mounted in `serve` at /mcp (streamable HTTP), behind the app's guards.
const tmp = mkdtempSync(join(tmpdir(), "rl-mcp-http-"));
const file = join(tmp, "run.jsonl");
let services: Services;

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function rpc(method: string, params: unknown, id = 1) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

const INITIALIZE = rpc("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "test", version: "0" },
});

beforeAll(async () => {
  writeFileSync(file, fixtureLines("reference-slime.jsonl").join("\n"));
  services = await createServices(parseServerConfig({ data: join(tmp, "data"), files: [file] }));
});

afterAll(async () => {
  await services.close();
});

describe("/mcp", () => {
  it("answers tools/call with the served files and links to this server's origin", async () => {
    const app = buildApp(services);
    const init = await app.request("http://127.0.0.1:5173/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: INITIALIZE,
    });
    expect(init.status).toBe(200);
    const res = await app.request("http://127.0.0.1:5173/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-protocol-version": "2025-06-18" },
      body: rpc("tools/call", { name: "list_files", arguments: {} }, 2),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { content: { text: string }[] } };
    const listed = JSON.parse(body.result.content[0]?.text ?? "{}") as {
      files: { id: string; url: string }[];
    };
    expect(listed.files[0]).toMatchObject({
      id: "f1",
      url: "http://127.0.0.1:5173/files/srv-f1",
    });
  });

  it("refuses a foreign Origin (403) and, when a token is required, a request without it (401)", async () => {
    const app = buildApp(services);
    const foreign = await app.request("http://127.0.0.1:5173/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, origin: "http://evil.example" },
      body: INITIALIZE,
    });
    expect(foreign.status).toBe(403);
    const locked = buildApp(
      services,
      resolveAccess({ ...services.config, requireToken: true, token: "s3cret" }),
    );
    const anonymous = await locked.request("http://127.0.0.1:5173/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: INITIALIZE,
    });
    expect(anonymous.status).toBe(401);
    const signed = await locked.request("http://127.0.0.1:5173/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: "Bearer s3cret" },
      body: INITIALIZE,
    });
    expect(signed.status).toBe(200);
  });
});

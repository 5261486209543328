// The MCP tools that reach SGLang, against the simulator: rescore (with the family guard) and
// branch (into the data directory, never the served file), and both refused without an upstream.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { type RunningSim, startSim } from "../sim/start";
import { createMcpServer, createToolContext } from "./mcpServer";

const realFile = fixturePath("atropos-rubiks-trimmed.jsonl");
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function connect(sglang: readonly string[] | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), "rl-mcp-upstream-"));
  const ctx = createToolContext({
    files: [realFile],
    dataDir,
    appUrl: "http://x",
    ...(sglang ? { sglang } : {}),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(ctx, "0").connect(a);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(b);
  closers.push(async () => {
    await client.close();
    await ctx.close();
  });
  const call = async (name: string, args: Record<string, unknown>) => {
    const answer = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const text = answer.content[0]?.text ?? "";
    return { isError: answer.isError === true, text, json: () => JSON.parse(text) };
  };
  return { call, dataDir };
}

async function sim(tokenizer?: string): Promise<RunningSim> {
  const running = await startSim({ port: 0 }, tokenizer ? { tokenizer } : {});
  closers.push(() => running.close());
  return running;
}

describe("MCP rescore and branch", () => {
  it("without an upstream, both say how to start with one", async () => {
    const { call } = await connect(undefined);
    for (const name of ["rescore", "branch"]) {
      const answer = await call(name, { file: "f1", row: 0, index: 5 });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/no upstream: start the server with --sglang URL/);
    }
  });

  it("rescores a real Llama-3 row: the lane against sampled, then shown by get_tokens", async () => {
    const upstream = await sim("llama3");
    const { call } = await connect([upstream.url]);
    const answer = await call("rescore", { file: "f1", row: 1 });
    expect(answer.isError, answer.text).toBe(false);
    const body = answer.json();
    expect(body.scored).toBeGreaterThan(1000);
    expect(body.family.status).toBe("match");
    const window = (await call("get_tokens", { file: "f1", row: 1, start: 1700, count: 5 })).json();
    expect(typeof window.tokens[0].lanes.rescored).toBe("number");
    // The served file is never written.
    expect(statSync(realFile).size).toBe(readFileSync(realFile).length);
  });

  it("refuses a Qwen upstream for Llama-3 ids, unless forced", async () => {
    const upstream = await sim("qwen3");
    const { call } = await connect([upstream.url]);
    const refused = await call("rescore", { file: "f1", row: 0 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/family mismatch: .*force: true to rescore anyway/);
    const forced = await call("rescore", { file: "f1", row: 0, force: true });
    expect(forced.isError, forced.text).toBe(false);
  });

  it("branches a row into the data directory's episodes.jsonl", async () => {
    const upstream = await sim("llama3");
    const { call, dataDir } = await connect([upstream.url]);
    const window = (await call("get_tokens", { file: "f1", row: 0, start: 0, count: 2000 })).json();
    const firstModel = window.tokens.find((t: { mask: number }) => t.mask === 1).i as number;
    const answer = await call("branch", { file: "f1", row: 0, index: firstModel + 3, n: 2 });
    expect(answer.isError, answer.text).toBe(false);
    const body = answer.json();
    expect(body.branches).toHaveLength(2);
    expect(body.tokenizer.name).toBe("llama3");
    const stored = readFileSync(join(dataDir, "episodes.jsonl"), "utf8").trim().split("\n");
    expect(stored).toHaveLength(2);
    expect(JSON.parse(stored[0] ?? "{}").parent_id).toBeDefined();
    const bad = await call("branch", { file: "f1", row: 0, index: 3 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/prompt/);
  });
});

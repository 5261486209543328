// A coding agent asking about a text-only table another tool wrote (a CSV export: prompt,
// completion, reward, a group id; no token ids): every answer says the file's places are records
// and why a row has no tokens, instead of an empty window and line numbers of the CSV's text.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { connectMcp } from "../../test-support/mcpClient";

const tmp = mkdtempSync(join(tmpdir(), "rl-mcp-text-"));
const csv = join(tmp, "scores.csv");
const jsonl = join(tmp, "rows.jsonl");
let client: Client;
let close: () => Promise<void>;

async function ask(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text?: string }[];
  };
  const text = answer.content[0]?.text ?? "";
  expect(answer.isError, text).not.toBe(true);
  return JSON.parse(text);
}

beforeAll(async () => {
  // Record 1's prompt spans two lines of the text; record 3, the last, is bad (no number reward).
  writeFileSync(csv, 'prompt,completion,reward,uid\n"a\nb",c,1,g1\nd,e,0,g1\nf,g,high,g1\n');
  writeFileSync(jsonl, `${fixtureLines("reference-slime.jsonl")[0]}\n`);
  const mcp = await connectMcp({ files: [csv, jsonl], dataDir: join(tmp, "data"), appUrl: "x" });
  client = mcp.client;
  close = mcp.close;
});

afterAll(async () => {
  await close?.();
});

describe("MCP answers on a text-only table", () => {
  it("describe_file counts records, the bad last one too, and says they are records", async () => {
    const file = await ask("describe_file", { file: "f1" });
    expect(file).toMatchObject({ rows: 2, lines: 3, bad_lines: 1, unit: "record" });
    expect(file.errors).toEqual([expect.objectContaining({ line: 3, field: "reward" })]);
  });

  it("get_tokens says why a text-only row has no tokens", async () => {
    const tokens = await ask("get_tokens", { file: "f1", row: 0 });
    expect(tokens.tokens).toEqual([]);
    expect(tokens.ids_absent).toMatch(/^this file holds decoded text only/);
  });

  it("check_mismatch and group_findings name the file's unit", async () => {
    const mismatch = await ask("check_mismatch", { file: "f1" });
    expect(mismatch).toMatchObject({ nothing_compared: true, unit: "record", bad_lines: 1 });
    const groups = await ask("group_findings", { file: "f1" });
    expect(groups).toMatchObject({ unit: "record", groups_total: 1 });
  });

  it("a JSON lines file keeps lines: no unit, no ids_absent", async () => {
    const file = await ask("describe_file", { file: "f2" });
    expect(file.unit).toBeUndefined();
    expect(file.lines).toBe(1);
    const tokens = await ask("get_tokens", { file: "f2", row: 0, count: 2 });
    expect(tokens.ids_absent).toBeUndefined();
    expect((tokens.tokens as unknown[]).length).toBe(2);
  });
});

// The journey of a coding agent: the stdio MCP server driven by the SDK's own client, as Claude
// Code or Codex launch it, and its answers checked against the CLI's `--json` for the same questions.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "rollout-lens.mjs");
const realFile = join(root, "src", "test", "fixtures", "atropos-rubiks-trimmed.jsonl");

let client: Client;

interface ToolAnswer {
  readonly isError?: boolean;
  readonly content: readonly { type: string; text?: string }[];
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** A tool's JSON answer (fails the test when the tool answered an error). */
async function ask<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) {
  const answer = await call(name, args);
  const text = answer.content[0]?.text ?? "";
  expect(answer.isError, text).not.toBe(true);
  return JSON.parse(text) as T;
}

function cliJson(args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [bin, ...args, "--json"], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  client = new Client({ name: "rollout-lens-e2e", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", realFile, "--app-url", "http://127.0.0.1:5173"],
      cwd: root,
      stderr: "pipe",
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
});

describe("rollout-lens mcp over stdio", () => {
  it("lists its tools, each with an argument schema", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      "list_files",
      "describe_file",
      "find_rows",
      "get_tokens",
      "check_drift",
      "check_mismatch",
      "group_findings",
      "step_trends",
    ]) {
      expect(names).toContain(name);
    }
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
  });

  it("opens a real Llama-3 atropos file: format, rows, the tokenizer from its ids", async () => {
    const listed = await ask<{ files: { id: string; name: string; url: string }[] }>("list_files");
    expect(listed.files[0]).toMatchObject({
      id: "f1",
      name: "atropos-rubiks-trimmed.jsonl",
      url: "http://127.0.0.1:5173/files/srv-f1",
    });
    const file = await ask("describe_file", { file: "f1" });
    expect(file).toMatchObject({ format: "atropos", rows: 4, lines: 2, bad_lines: 0, groups: 2 });
    expect(file.tokenizer).toMatchObject({ name: "llama3", reason: "ids" });
  });

  it("finds rows by filter and by a token-id subsequence, with links to the match", async () => {
    const byReward = await ask<{ total: number; rows: { row: number; reward: number }[] }>(
      "find_rows",
      { file: "f1", reward_max: 0, sort: "reward" },
    );
    expect(byReward.total).toBe(2);
    expect(byReward.rows.every((r) => r.reward < 0)).toBe(true);
    const window = await ask<{ tokens: { id: number }[] }>("get_tokens", {
      file: "f1",
      row: 1,
      start: 700,
      count: 5,
    });
    const needle = window.tokens.map((t) => t.id);
    const found = await ask<{ rows: { row: number; match_at: number; url: string }[] }>(
      "find_rows",
      { file: "f1", token_ids: needle },
    );
    const hit = found.rows.find((r) => r.row === 1);
    expect(hit?.match_at).toBeLessThanOrEqual(700);
    expect(hit?.url).toBe(`http://127.0.0.1:5173/files/srv-f1/1?token=${hit?.match_at}`);
  });

  it("answers a 2,000-token window decoded with the file's tokenizer, with masks and segments", async () => {
    const window = await ask<{
      total_tokens: number;
      tokens: { i: number; id: number; text: string; mask: number; segment: string }[];
      next_start: number | null;
    }>("get_tokens", { file: "f1", row: 0, start: 0, count: 2000 });
    expect(window.tokens).toHaveLength(2000);
    expect(window.tokens[0]).toMatchObject({ i: 0, id: 128000, text: "<|begin_of_text|>" });
    expect(window.next_start).toBe(2000);
    expect(window.tokens.some((t) => t.mask === 1 && t.segment === "model")).toBe(true);
    expect(window.tokens.some((t) => t.mask === 0)).toBe(true);
  });

  it("check_drift gives the counts `rollout-lens drift --json` gives", async () => {
    const mcp = await ask("check_drift", { file: "f1" });
    const cli = cliJson(["drift", realFile]);
    const file = (cli.files as Record<string, unknown>[])[0] ?? {};
    for (const key of ["format", "trajectories", "checked", "unchecked", "drifted", "exit_code"]) {
      expect(mcp[key], key).toEqual(file[key]);
    }
    expect(mcp.tokenizer).toEqual(file.tokenizer);
  });

  it("finds the zero-variance group and its rows, as `rollout-lens groups --json` does", async () => {
    const mcp = await ask<{
      zero_variance: number;
      groups: {
        id: string;
        zero_variance_cause: string;
        duplicate_sets: number[][];
        rows: number[];
      }[];
    }>("group_findings", { file: "f1", only: "zero-variance" });
    const cli = cliJson(["groups", realFile]);
    const cliGroups = (
      (cli.files as { groups: Record<string, unknown>[] }[])[0]?.groups ?? []
    ).filter((g) => g.zero_variance === true);
    expect(mcp.zero_variance).toBe(1);
    expect(mcp.groups.map((g) => g.id)).toEqual(cliGroups.map((g) => g.id));
    expect(mcp.groups[0]).toMatchObject({
      zero_variance_cause: "identical",
      duplicate_sets: [[0, 1]],
      rows: [2, 3],
    });
    const rows = await ask<{ rows: { row: number }[] }>("find_rows", {
      file: "f1",
      group_finding: "zero-variance",
    });
    expect(rows.rows.map((r) => r.row)).toEqual([2, 3]);
  });

  it("answers bad arguments with MCP errors in the CLI's words, never a crash", async () => {
    const unknownFile = await call("describe_file", { file: "../../etc/passwd" });
    expect(unknownFile.isError).toBe(true);
    expect(unknownFile.content[0]?.text).toMatch(
      /no file with id "\.\.\/\.\.\/etc\/passwd": the files are f1/,
    );
    const hugePage = await call("get_tokens", { file: "f1", row: 0, count: 1e9 });
    expect(hugePage.isError).toBe(true);
    const badRow = await call("get_tokens", { file: "f1", row: 99 });
    expect(badRow.content[0]?.text).toMatch(/no row 99 \(the file has 4 rows/);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).resolves.toMatchObject({
      isError: true,
    });
    // The server is still there.
    expect((await ask("list_files")).files).toBeDefined();
  });
});

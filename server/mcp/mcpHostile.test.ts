// Hostile tool arguments: huge pages, bad ids, paths (traversal, absolute), wrong types, deep
// nesting, unknown tools. Every call must come back as an answer or an MCP error, the server must
// keep answering, and nothing outside the files it was started with may be read.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { connectMcp } from "../../test-support/mcpClient";
import { MCP_TOOLS } from "./mcpServer";

const tmp = mkdtempSync(join(tmpdir(), "rl-mcp-hostile-"));
const served = join(tmp, "served.jsonl");
const secret = join(tmp, "secret.jsonl");
const SECRET_MARK = "do-not-leak-4f1c";
let client: Client;
let close: () => Promise<void>;

interface Answer {
  readonly isError?: boolean;
  readonly content: readonly { text?: string }[];
}

beforeAll(async () => {
  writeFileSync(served, `${fixtureLines("reference-slime.jsonl").join("\n")}\n`);
  // A readable rollout file beside the served one, with a marker no answer may ever contain.
  writeFileSync(
    secret,
    fixtureLines("reference-slime.jsonl")[0]?.replace(
      /"response":\s*"/,
      `"response": "${SECRET_MARK}`,
    ) ?? "",
  );
  const mcp = await connectMcp(
    { files: [served], dataDir: join(tmp, "data"), appUrl: "http://x" },
    "hostile",
  );
  client = mcp.client;
  close = mcp.close;
});

afterAll(async () => {
  await close?.();
});

const FILE_NAMES = [
  secret,
  "../secret.jsonl",
  "../../../../etc/passwd",
  "/etc/passwd",
  "f1/../../secret.jsonl",
  "f0",
  "F1",
  "episodes/..",
  "%2e%2e%2fsecret.jsonl",
  "\u0000",
  "x".repeat(5000),
];

const HOSTILE_VALUE = fc.oneof(
  fc.constantFrom<unknown>(
    -1,
    1e9,
    1e300,
    Number.MAX_SAFE_INTEGER,
    -0,
    0.5,
    "0",
    "",
    null,
    true,
    [],
    {},
    "x".repeat(100_000),
    Array.from({ length: 10_000 }, (_, i) => i),
  ),
  fc.constantFrom(...FILE_NAMES),
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(JSON.parse(`${"[".repeat(3000)}${"]".repeat(3000)}`)),
);

async function callAnyway(name: string, args: unknown): Promise<Answer> {
  try {
    return (await client.callTool({
      name,
      arguments: args as Record<string, unknown>,
    })) as Answer;
  } catch (error) {
    // A protocol-level refusal (the SDK's own argument checks) is an answer too.
    return { isError: true, content: [{ text: String(error) }] };
  }
}

describe("hostile MCP tool arguments", () => {
  it("file arguments that are paths never reach a file: an error naming the ids there are", async () => {
    for (const tool of [
      "describe_file",
      "find_rows",
      "get_tokens",
      "check_drift",
      "check_mismatch",
    ]) {
      for (const file of FILE_NAMES) {
        const answer = await callAnyway(tool, { file, row: 0 });
        expect(answer.isError, `${tool} ${file.slice(0, 40)}`).toBe(true);
        expect(answer.content[0]?.text ?? "").not.toContain(SECRET_MARK);
      }
    }
  });

  it("random and oversized arguments to every tool: answers or errors, never a crash or a leak", async () => {
    const counts = { calls: 0, errors: 0 };
    const tools = [...MCP_TOOLS.map((t) => t.name), "no_such_tool"];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tools),
        fc.dictionary(
          fc.constantFrom(
            "file",
            "row",
            "start",
            "count",
            "offset",
            "limit",
            "token_ids",
            "lanes",
            "mode",
            "text",
            "sort",
            "cap",
            "run",
            "__proto__",
          ),
          HOSTILE_VALUE,
          { maxKeys: 5 },
        ),
        fc.boolean(),
        async (name, args, servedFile) => {
          const answer = await callAnyway(name, servedFile ? { ...args, file: "f1" } : args);
          counts.calls += 1;
          if (answer.isError) counts.errors += 1;
          const text = answer.content.map((c) => c.text ?? "").join("");
          expect(text).not.toContain(SECRET_MARK);
          expect(text.length).toBeLessThanOrEqual(410_000);
        },
      ),
      { numRuns: 150, seed: 20261126 },
    );
    console.log(
      `MCP hostile arguments: ${counts.calls} calls, ${counts.errors} refused, 0 crashes`,
    );
    const listed = await callAnyway("list_files", {});
    expect(listed.isError).not.toBe(true);
    expect(JSON.parse(listed.content[0]?.text ?? "{}").files).toHaveLength(2);
  }, 120_000);
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rolloutLensLineSchema } from "../../src/core/formats/rolloutLensSchema";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";

// A real atropos group written by a Llama-3 model (no `tokenizer` or `model` field): row 0 has a
// 1,934-token prompt and a 157-token model turn. The one tokenizer rule reads its ids as llama3.
const dir = mkdtempSync(join(tmpdir(), "rl-branch-real-"));
const file = join(dir, "rubiks.jsonl");
const line = fixtureLines("atropos-rubiks-trimmed.jsonl")[0] ?? "";
const PROMPT = 1934;
// A text-only row as verifiers' vf-eval writes it (chat prompt and completion, no ids): file f2.
const textFile = join(dir, "results.jsonl");
const textRow = {
  example_id: 0,
  prompt: [{ role: "user", content: "2+2?" }],
  completion: [{ role: "assistant", content: "4" }],
  reward: 1,
};
let services: Services;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  writeFileSync(file, `${line}\n`);
  writeFileSync(textFile, `${JSON.stringify(textRow)}\n`);
  services = await createServices(
    parseServerConfig({ data: join(dir, "data"), files: [file, textFile], maxEpisodes: 4 }),
  );
  app = buildApp(services);
}, 60_000);

afterAll(async () => {
  await services?.close();
});

describe("branching a real Llama-3 atropos row that names no tokenizer", () => {
  it("rollout-lens branch: chooses llama3 from the ids, says so, and runs on the simulator", async () => {
    const out = join(dir, "branches.jsonl");
    const index = PROMPT + 20;
    const result = await runCli([
      "branch",
      file,
      "--row",
      "0",
      "--index",
      String(index),
      "--n",
      "2",
      "--max-new-tokens",
      "24",
      "--out",
      out,
    ]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain("tokenizer: llama3 (recognised from the first token ids)");
    const written = readFileSync(out, "utf8").trim().split("\n");
    expect(written).toHaveLength(2);
    const parentIds = JSON.parse(line).tokens[0] as number[];
    for (const text of written) {
      const branch = rolloutLensLineSchema.parse(JSON.parse(text));
      expect(branch.tokenizer).toBe("llama3");
      expect(branch.fork_index).toBe(index);
      const ids = branch.token_ids;
      expect(ids.slice(0, index)).toEqual(parentIds.slice(0, index));
    }
    expect(readFileSync(file, "utf8")).toBe(`${line}\n`);
  }, 60_000);

  it("rollout-lens branch --index 600 names the real reason (the prompt), not the tokenizer", async () => {
    const result = await runCli([
      "branch",
      file,
      "--row",
      "0",
      "--index",
      "600",
      "--out",
      join(dir, "x.jsonl"),
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/fork index 600 is inside the initial prompt \(tokens 0\.\.1933\)/);
    expect(result.err).not.toMatch(/records no tokenizer/);
  });

  it("--tokenizer picks, and a pick whose vocabulary the ids are not is refused", async () => {
    const result = await runCli([
      "branch",
      file,
      "--row",
      "0",
      "--index",
      String(PROMPT + 1),
      "--tokenizer",
      "qwen3",
      "--out",
      join(dir, "y.jsonl"),
    ]);
    expect(result.code).toBe(2);
    expect(result.out).toContain("tokenizer: qwen3 (given with --tokenizer)");
    expect(result.err).toMatch(
      /cannot be continued by qwen3: token 0 is 128000, llama3's <\|begin_of_text\|>/,
    );
  });

  it("POST /api/episodes with a file fork: 201, the rule's choice in the answer, the branch in llama3", async () => {
    const index = PROMPT + 10;
    const response = await app.request("/api/episodes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        fork: { file: "f1", row: 0, index },
        sampling_params: { max_new_tokens: 16 },
      }),
    });
    const body = (await response.json()) as { id: string; tokenizer: unknown; error?: string };
    expect(body.error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(body.tokenizer).toEqual({
      name: "llama3",
      reason: "ids",
      why: "recognised from the first token ids",
    });
    await (await app.request(`/api/episodes/${body.id}/events`)).text();
    const stored = rolloutLensLineSchema.parse(
      await (await app.request(`/api/episodes/${body.id}`)).json(),
    );
    expect(stored.tokenizer).toBe("llama3");
    expect(stored.status).not.toBe("aborted");
    const parentIds = JSON.parse(line).tokens[0] as number[];
    expect(stored.token_ids.slice(0, index)).toEqual(parentIds.slice(0, index));
  }, 60_000);

  it("POST /api/episodes forking a text-only row: 400, no ids to fork from, nothing started", async () => {
    const response = await app.request("/api/episodes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fork: { file: "f2", row: 0, index: 1 } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string };
    expect(body.error).toMatch(/^fork: no token ids to fork from: this (file|trajectory) holds/);
  });
});

import { cpSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { runEpisodeThroughApi } from "../../test-support/episodeApi";
import { buildApp } from "../app";
import { validateCommand } from "../commands/validate";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { type RunningSim, startSim } from "../sim/start";

// A branch forked inside a model segment that ends before its first reply (the user aborts, the
// upstream fails, the server is killed) must still be stored as a line `validate` accepts, holding
// the parent's fork_index tokens, and stay in the API after a restart.

const root = mkdtempSync(join(tmpdir(), "rl-branch-endings-"));
const rows = join(root, "rows.jsonl");
const sims: RunningSim[] = [];
const opened: Services[] = [];
let forkIndex = 0;

async function server(data: string, sim: RunningSim, attempts = 6) {
  const services = await createServices(
    parseServerConfig({ data, sglang: [sim.url], files: [rows], sglangAttempts: attempts }),
    { sglang: { retry: { maxAttempts: attempts, baseDelayMs: 1, maxDelayMs: 2 } } },
  );
  opened.push(services);
  return { services, app: buildApp(services) };
}

type App = ReturnType<typeof buildApp>;
const json = { "content-type": "application/json" };

async function fork(app: App): Promise<string> {
  const listed = (await (await app.request("/api/files")).json()) as { files: { id: string }[] };
  const file = listed.files[0]?.id;
  const res = await app.request("/api/episodes", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ fork: { file, row: 0, index: forkIndex } }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function validates(line: string): Promise<{ code: number; out: string }> {
  const path = join(mkdtempSync(join(root, "check-")), "line.jsonl");
  writeFileSync(path, `${line}\n`);
  let out = "";
  const code = await validateCommand([path], {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      out += `${t}\n`;
    },
  });
  return { code, out };
}

/** The stored line of `id`: validate accepts it and it holds exactly the parent's first N ids. */
async function expectWhole(app: App, id: string, status: string, isReplyAbort = true) {
  const res = await app.request(`/api/episodes/${id}`);
  expect(res.status).toBe(200);
  const line = await res.text();
  const checked = await validates(line);
  expect(checked.out).toContain("1 valid");
  expect(checked.code).toBe(0);
  const read = readRolloutLine(line, 1, "rollout-lens/v1", "stored");
  const t = read.kind === "trajectories" ? read.trajectories[0] : undefined;
  expect(t?.status).toBe(status);
  expect(t?.lineage?.forkIndex).toBe(forkIndex);
  expect(t?.segments.reduce((n, s) => n + s.tokenIds.length, 0)).toBe(forkIndex);
  expect(t?.segments.at(-1)).toMatchObject({
    kind: "model",
    ...(isReplyAbort ? { finishReason: { type: "abort" } } : {}),
  });
}

beforeAll(async () => {
  const fast = await startSim({ port: 0 }, { tokenizer: "qwen3" });
  sims.push(fast);
  writeFileSync(rows, "");
  const { app } = await server(join(root, "parent-data"), fast);
  const parent = JSON.parse(
    await runEpisodeThroughApi(app, { prompt: "What is 15*7?", policy: "calculator" }),
  );
  writeFileSync(rows, `${JSON.stringify(parent)}\n`);
  const model = parent.segments.find((s: { kind: string }) => s.kind === "model");
  forkIndex = model.start + 3;
}, 60_000);

afterAll(async () => {
  for (const services of opened) await services.close();
  for (const sim of sims) await sim.close();
});

describe("a branch forked mid-model-segment that ends before its first reply", () => {
  it("is kept whole when the user aborts it, and after a restart", async () => {
    const slow = await startSim({ port: 0 }, { tokenizer: "qwen3", requestLatencyMs: 60_000 });
    sims.push(slow);
    const data = join(root, "abort-data");
    const { app, services } = await server(data, slow);
    const id = await fork(app);
    // While it waits for the reply, the running branch already holds the parent's tokens.
    const running = await (await app.request(`/api/episodes/${id}`)).json();
    expect(running.token_ids).toHaveLength(forkIndex);
    const aborted = await app.request(`/api/episodes/${id}/abort`, {
      method: "POST",
      headers: json,
      body: "{}",
    });
    expect(aborted.status).toBe(200);
    await (await app.request(`/api/episodes/${id}/events`)).text();
    await expectWhole(app, id, "aborted");
    opened.splice(opened.indexOf(services), 1);
    await services.close();
    const restarted = await server(data, slow);
    await expectWhole(restarted.app, id, "aborted");
  }, 60_000);

  it("is kept whole when the upstream fails", async () => {
    const failing = await startSim({ port: 0 }, { tokenizer: "qwen3", faults: { rate500: 1 } });
    sims.push(failing);
    const { app } = await server(join(root, "error-data"), failing, 1);
    const id = await fork(app);
    await (await app.request(`/api/episodes/${id}/events`)).text();
    await expectWhole(app, id, "aborted");
  }, 60_000);

  it("is recovered whole from its journal after kill -9", async () => {
    const slow = await startSim({ port: 0 }, { tokenizer: "qwen3", requestLatencyMs: 60_000 });
    sims.push(slow);
    const data = join(root, "kill-data");
    const { app } = await server(data, slow);
    const id = await fork(app);
    const journal = join(data, "running", `${id}.jsonl`);
    for (let i = 0; i < 100 && !existsSync(journal); i++)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50)); // the journal's first batch is written
    // The data directory as a kill -9 leaves it: the journal, no finished line.
    const copy = join(root, "kill-copy");
    cpSync(data, copy, { recursive: true });
    expect(readdirSync(join(copy, "running"))).toEqual([`${id}.jsonl`]);
    const restarted = await server(copy, slow);
    // The journal held the parent's tokens as the pending model segment, without a finish reason.
    await expectWhole(restarted.app, id, "aborted", false);
  }, 60_000);
});

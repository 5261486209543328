import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { type Stub, sendJson, startStub } from "../../test-support/sglang/stubUpstream";
import { waitUntil } from "../../test-support/sim";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { type RunningSim, startSim } from "../sim/start";

// The rescore endpoint's guards: the family check (409 unless force), the lane a finished
// episode keeps across a restart, the record a file row gets back to save as a new file,
// impossible lanes refused, and an upstream call dropped with its client.

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => {});
});

async function server(options: { data?: string; sglang?: string[] } = {}) {
  const data = options.data ?? mkdtempSync(join(tmpdir(), "rl-rescore-api-"));
  const services: Services = await createServices(
    parseServerConfig({ data, ...(options.sglang ? { sglang: options.sglang } : {}) }),
    { sglang: { retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 } } },
  );
  opened.push(services);
  const app = buildApp(services);
  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    app.request(
      new Request(`http://127.0.0.1${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      }),
    );
  return { app, post, data, services };
}

const llamaLine = fixtureLines("atropos-rubiks-trimmed.jsonl")[0] ?? "";

async function simOf(tokenizer: string): Promise<RunningSim> {
  const sim = await startSim({ port: 0 }, { tokenizer });
  opened.push(sim);
  return sim;
}

describe("POST /api/rescore", () => {
  it("refuses a Llama-3 row on a Qwen3 upstream with 409 and the reason, and rescores it with force", async () => {
    const qwen = await simOf("qwen3");
    const { post } = await server({ sglang: [qwen.url] });
    const refused = await post("/api/rescore", { record: llamaLine, row: 0 });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as {
      error: string;
      family: { status: string; ids: unknown };
    };
    expect(body.error).toMatch(
      /family mismatch: the upstream serves qwen3 \(qwen3\), but token 0 is 128000, llama3's/,
    );
    expect(body.error).toContain('"force": true');
    expect(body.family.status).toBe("mismatch");
    expect(body.family.ids).toEqual({
      name: "llama3",
      reason: "ids",
      why: "recognised from the first token ids",
    });
    const forced = await post("/api/rescore", { record: llamaLine, row: 0, force: true });
    expect(forced.status).toBe(200);
  });

  it("on the embedded simulator: a Llama-3 file row is rescored, its record returned with the lane to save as", async () => {
    const { post } = await server();
    const response = await post("/api/rescore", { record: llamaLine, row: 1 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      lane: (number | null)[];
      record: string;
      family: { status: string };
    };
    expect(body.family.status).toBe("match");
    const read = readRolloutLine(body.record, 1);
    if (read.kind !== "trajectories")
      throw new Error(`record not readable: ${JSON.stringify(read).slice(0, 300)}`);
    expect(read.format).toBe("atropos");
    expect(read.trajectories[1]?.logprobLanes?.rescored).toEqual(body.lane);
    // The original bytes come first: nothing of the row's record is rewritten.
    expect(body.record.startsWith(llamaLine.trimEnd().slice(0, -1))).toBe(true);
  });

  it("stores an episode's rescored lane, so it is there after a restart", async () => {
    const first = await server();
    const started = await first.post("/api/episodes", {
      prompt: "What is 6*7?",
      policy: "calculator",
    });
    const { id } = (await started.json()) as { id: string };
    await (await first.app.request(`/api/episodes/${id}/events`)).text();
    const rescored = await first.post("/api/rescore", { episodeId: id });
    const body = (await rescored.json()) as { lane: (number | null)[]; persisted: boolean };
    expect(body.persisted).toBe(true);
    await first.services.close();
    opened.splice(opened.indexOf(first.services), 1);
    const again = await server({ data: first.data });
    const stored = (await (await again.app.request(`/api/episodes/${id}`)).json()) as {
      logprob_lanes?: Record<string, unknown>;
    };
    expect(stored.logprob_lanes?.rescored).toEqual(body.lane);
    const list = (await (await again.app.request("/api/episodes")).json()) as {
      episodes: { id: string }[];
    };
    expect(list.episodes.filter((e) => e.id === id)).toHaveLength(1);
  });

  it("answers 502 for a lane with a logprob above 0 or only nulls", async () => {
    for (const value of [4.5, null]) {
      const stub = await startStub((req, res) => {
        if (req.path.endsWith("model_info"))
          return sendJson(res, 200, { model_path: "Qwen/Qwen3-4B" });
        if (req.path !== "/generate") return sendJson(res, 404, {});
        const ids = (req.body as { input_ids: number[] }).input_ids;
        sendJson(res, 200, {
          text: "",
          output_ids: [],
          meta_info: {
            id: "r",
            finish_reason: { type: "length", length: 0 },
            input_token_logprobs: ids.map((id, k) => [k === 0 ? null : value, id, null]),
          },
        });
      });
      opened.push(stub);
      const { post } = await server({ sglang: [stub.url] });
      const response = await post("/api/rescore", { ids: [1, 2, 3] });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: string }).error).toMatch(
        value === null ? /all 3 logprobs are null/ : /token 1 has logprob 4.5, outside \[-inf, 0\]/,
      );
    }
  });

  it("stops calling the upstream when the client of a raw-ids rescore goes away", async () => {
    let stub: Stub | undefined;
    stub = await startStub((req, res) => {
      if (req.path.endsWith("model_info"))
        return sendJson(res, 200, { model_path: "Qwen/Qwen3-4B" });
      if (req.path === "/health") return sendJson(res, 200, {});
      return sendJson(res, 503, { error: { message: "busy" } });
    });
    opened.push(stub);
    const { services } = await server({ sglang: [stub.url] });
    const app = buildApp(services);
    const client = new AbortController();
    const answer = Promise.resolve(
      app.request(
        new Request("http://127.0.0.1/api/rescore", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ids: [1, 2, 3] }),
          signal: client.signal,
        }),
      ),
    ).catch(() => undefined);
    await waitUntil(() => (stub?.count("/generate") ?? 0) >= 1);
    client.abort();
    await answer;
    const seen = stub.count("/generate");
    // Three attempts would be made with the client there (50-200 ms apart); none follows the abort.
    await new Promise((r) => setTimeout(r, 600));
    expect(stub.count("/generate")).toBe(seen);
    expect(seen).toBeLessThan(3);
  });
});

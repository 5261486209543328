import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { checkBundle } from "../../src/core/bisect/bundle";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";

// POST /api/bisect with the server's own upstreams: two configured upstreams are a and b, each
// knob asks the one it names; bad requests are 400s naming the field.

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close().catch(() => {});
});

async function server(sglang: string[]) {
  return (await serverWith(sglang)).post;
}

async function serverWith(sglang: string[]) {
  const data = mkdtempSync(join(tmpdir(), "rl-bisect-api-"));
  const services: Services = await createServices(parseServerConfig({ data, sglang }));
  opened.push(services);
  const app = buildApp(services);
  const post = (body: unknown) =>
    app.request(
      new Request("http://127.0.0.1/api/bisect", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
  return { services, post };
}

async function sim(noise = 0): Promise<RunningSim> {
  const s = await startSim({ port: 0 }, { logprobNoise: noise });
  opened.push(s);
  return s;
}

const line = (fixtureLines("reference-rollout-lens.jsonl")[0] ?? "").replace(
  '"temperature":1,',
  '"temperature":0.7,"top_p":0.9,',
);

describe("POST /api/bisect", () => {
  it("runs every knob, upstream b being the server's second upstream", async () => {
    const [a, b] = [await sim(), await sim(0.3)];
    const post = await server([a.url, b.url]);
    const res = await post({ record: line, row: 0, knobs: ["batch", "upstream"] });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as {
      bundle: unknown;
      rows: { knob: string; status: string }[];
    };
    const checked = checkBundle(reply.bundle, "reply");
    if (!checked.ok) throw new Error(checked.error);
    expect(checked.bundle.server.url).toBe(a.url);
    expect(checked.bundle.server_b?.url).toBe(b.url);
    expect(reply.rows.map((r) => `${r.knob}:${r.status}`)).toEqual([
      "reference:ran",
      "batch:ran",
      "upstream:ran",
    ]);
    const upstream = checked.bundle.knobs[2];
    expect(upstream?.status === "ran" && upstream.upstream).toBe(b.url);
  }, 120_000);

  it("refuses Llama-3 ids against a Qwen3 upstream with 409, unless force", async () => {
    const qwen = await startSim({ port: 0 }, { tokenizer: "qwen3" });
    opened.push(qwen);
    const post = await server([qwen.url]);
    const llama = fixtureLines("atropos-rubiks-trimmed.jsonl")[0] ?? "";
    const refused = await post({ record: llama, row: 0, knobs: ["batch"] });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^family mismatch: .*send "force": true to rescore anyway/,
    );
  }, 120_000);

  it("refuses upstream b of another family with 409 when the upstream knob runs, unless force", async () => {
    const qwen = await startSim({ port: 0 }, { tokenizer: "qwen3" });
    const llama = await startSim({ port: 0 }, { tokenizer: "llama3" });
    opened.push(qwen, llama);
    const post = await server([qwen.url, llama.url]);
    const refused = await post({ record: line, row: 0, knobs: ["upstream"] });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^upstream b: family mismatch: .*send "force": true to rescore anyway/,
    );
    // Without the upstream knob, b is not asked: its family does not matter.
    expect((await post({ record: line, row: 0, knobs: ["batch"] })).status).toBe(200);
    const forced = await post({ record: line, row: 0, knobs: ["upstream"], force: true });
    expect(forced.status).toBe(200);
  }, 120_000);

  it("closes the clients of upstreams a and b with the server", async () => {
    const [a, b] = [await sim(), await sim()];
    const { services, post } = await serverWith([a.url, b.url]);
    expect((await post({ record: line, row: 0, knobs: ["upstream"] })).status).toBe(200);
    const up = services.bisect.upstreams();
    expect(up.a.client).not.toBe(services.sglang);
    const [ca, cb] = [up.a.client, up.b?.client];
    if (!(ca instanceof SglangClient && cb instanceof SglangClient))
      throw new Error("a and b should have SGLang clients of their own");
    const closeA = vi.spyOn(ca, "close");
    const closeB = vi.spyOn(cb, "close");
    await services.close();
    expect(closeA).toHaveBeenCalledTimes(1);
    expect(closeB).toHaveBeenCalledTimes(1);
  }, 120_000);

  it("answers 400 naming the field for a bad request", async () => {
    const post = await server([(await sim()).url]);
    const bad = await post({ record: line, knobs: ["tp"] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/knobs/);
    const out = await post({ record: line, row: 3 });
    expect(out.status).toBe(400);
    expect(((await out.json()) as { error: string }).error).toMatch(/^row: 3 is out of range/);
    // A text-only record (TRL's, verifiers') has no ids to rescore.
    const text = JSON.stringify({ prompt: "2+2?", completion: "4", reward: 1 });
    const textOnly = await post({ record: text, row: 0 });
    expect(textOnly.status).toBe(400);
    expect(((await textOnly.json()) as { error: string }).error).toMatch(
      /^row 0: no token ids to rescore \(a text-only record\)/,
    );
  }, 120_000);
});

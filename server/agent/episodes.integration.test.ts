import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { rolloutLensLineSchema } from "../../src/core/formats/rolloutLensSchema";
import type { EpisodeEvent } from "../../src/core/wire/episodes";
import { expectWireEvent } from "../../test-support/wireEvents";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import type { ModelClient, ModelTurn } from "./modelClient";

interface Exchange {
  readonly inputIds: readonly number[];
  readonly turn: ModelTurn;
}

let services: Services;
let app: ReturnType<typeof buildApp>;
const exchanges: Exchange[] = [];

function recording(client: ModelClient): ModelClient {
  return {
    ...client,
    async generate(request) {
      const turn = await client.generate(request);
      exchanges.push({ inputIds: request.inputIds.slice(), turn });
      return turn;
    },
  };
}

async function post(path: string, body: unknown) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Reads the whole SSE stream of an episode (it ends after the `end` event). */
async function events(id: string): Promise<EpisodeEvent[]> {
  const response = await app.request(`/api/episodes/${id}/events`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => {
      const event: EpisodeEvent = JSON.parse(line.slice(6));
      expectWireEvent(event);
      return event;
    });
}

async function runToEnd(body: unknown) {
  const started = await post("/api/episodes", body);
  expect(started.status).toBe(201);
  const { id } = (await started.json()) as { id: string };
  const stream = await events(id);
  const fetched = await app.request(`/api/episodes/${id}`);
  expect(fetched.status).toBe(200);
  const line = rolloutLensLineSchema.parse(await fetched.json());
  return { id, stream, line };
}

beforeAll(async () => {
  const data = mkdtempSync(join(tmpdir(), "rl-episodes-"));
  services = await createServices(parseServerConfig({ data }), { wrapClient: recording });
  app = buildApp(services);
});

afterAll(async () => {
  await services.close();
});

describe("live episodes against the simulator", () => {
  it("records the calculator episode token for token (TITO)", async () => {
    exchanges.length = 0;
    const { stream, line } = await runToEnd({ prompt: "What is 15*7?", policy: "calculator" });
    expect(line.status).toBe("completed");
    expect(stream.at(-1)).toEqual({
      type: "end",
      status: "completed",
      reason: "the model answered with no further tool call",
    });
    expect(exchanges.length).toBeGreaterThanOrEqual(2);

    const last = exchanges.at(-1);
    expect(line.token_ids).toEqual([...(last?.inputIds ?? []), ...(last?.turn.outputIds ?? [])]);
    for (let k = 1; k < exchanges.length; k++) {
      const prev = exchanges[k - 1];
      const next = exchanges[k]?.inputIds ?? [];
      const expected = [...(prev?.inputIds ?? []), ...(prev?.turn.outputIds ?? [])];
      expect(next.slice(0, expected.length)).toEqual(expected);
    }

    // loss_mask is 1 exactly on model output tokens, and their logprobs are the upstream's.
    const modelPositions = new Set<number>();
    for (const segment of line.segments) {
      if (segment.kind !== "model") continue;
      for (let i = segment.start; i < segment.end; i++) modelPositions.add(i);
    }
    line.loss_mask.forEach((m, i) => {
      expect(m).toBe(modelPositions.has(i) ? 1 : 0);
    });
    const upstreamLogprobs = exchanges.flatMap((e) => e.turn.logprobs);
    const recorded = line.segments
      .filter((s) => s.kind === "model")
      .flatMap((s) => line.logprobs.slice(s.start, s.end));
    expect(recorded).toEqual(upstreamLogprobs);

    const calls = line.segments.flatMap((s) => s.tool_calls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "calculator", result: "105" });
    expect(stream.map((e) => e.type)).toContain("tool_result");
    const answer = line.segments.at(-1);
    expect(answer?.kind).toBe("model");
    // Each call records the upstream that ran it, through the stored line.
    expect(line.calls?.map((c) => c.upstream)).toEqual(
      exchanges.map(() => services.sglang.upstreamUrls[0]),
    );
  });

  it("keeps the non-canonical policy's odd token splits unchanged", async () => {
    exchanges.length = 0;
    const { line } = await runToEnd({ prompt: "Tell me about tokens.", policy: "non-canonical" });
    const outputs = exchanges.flatMap((e) => e.turn.outputIds);
    const model = line.segments
      .filter((s) => s.kind === "model")
      .flatMap((s) => line.token_ids.slice(s.start, s.end));
    expect(model).toEqual(outputs);
    expect(services.tokenizer.encode(services.tokenizer.decode(outputs))).not.toEqual(outputs);
  });

  it("cuts the looping policy after exactly 3 tool iterations, and stores what the API serves", async () => {
    exchanges.length = 0;
    const { id, stream, line } = await runToEnd({
      prompt: "Loop please",
      policy: "looping",
      max_iterations: 3,
    });
    expect(line.status).toBe("truncated");
    expect(exchanges).toHaveLength(3);
    const models = line.segments.filter((s) => s.kind === "model");
    expect(models).toHaveLength(3);
    expect(line.segments.at(-1)).toMatchObject({ kind: "model", cutoff: true });
    expect(stream.filter((e) => e.type === "cutoff")).toHaveLength(1);
    expect(line.metadata.untokenized_tool_results).toHaveLength(1);

    const stored = readFileSync(services.store.episodesPath, "utf8")
      .split("\n")
      .map((text, i) => readRolloutLine(text, i + 1))
      .flatMap((r) => (r.kind === "trajectories" ? r.trajectories : []))
      .find((t) => t.id === id);
    const served = readRolloutLine(JSON.stringify(line), 1);
    expect(served.kind).toBe("trajectories");
    if (served.kind !== "trajectories") return;
    expect(stored?.segments).toEqual(served.trajectories[0]?.segments);
  });

  it("records 5 alternatives per model token by default (top_logprobs_num), none with 0", async () => {
    exchanges.length = 0;
    const { stream, line } = await runToEnd({ prompt: "What is 15*7?", policy: "calculator" });
    const models = line.segments.filter((s) => s.kind === "model");
    expect(models.length).toBeGreaterThanOrEqual(2);
    for (const segment of models) {
      expect(segment.top_logprobs).toHaveLength(segment.end - segment.start);
      for (const [i, top] of (segment.top_logprobs ?? []).entries()) {
        expect(top).toHaveLength(5);
        // The sampled token is among its own alternatives, with the logprob recorded for it.
        const sampled = line.token_ids[segment.start + i];
        const own = top?.find((t) => t.token_id === sampled);
        expect(own?.logprob).toBe(line.logprobs[segment.start + i]);
      }
    }
    // The live events carry them too (the hover card of a running episode reads these).
    const live = stream.flatMap((e) => (e.type === "segment" ? [e.segment] : []));
    expect(
      live.filter((s) => s.kind === "model").every((s) => s.topLogprobs?.[0]?.length === 5),
    ).toBe(true);

    const off = await runToEnd({
      prompt: "What is 15*7?",
      policy: "calculator",
      top_logprobs_num: 0,
    });
    expect(off.line.segments.some((s) => s.top_logprobs !== undefined)).toBe(false);
  });

  it("rejects top_logprobs_num outside 0..20 with a 400 naming the field", async () => {
    for (const value of [21, -1, 2.5, "5"]) {
      const bad = await post("/api/episodes", { prompt: "hi", top_logprobs_num: value });
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain("top_logprobs_num");
    }
  });

  it("lists finished episodes newest first and rejects bad bodies with the field", async () => {
    const list = await app.request("/api/episodes");
    const { episodes } = (await list.json()) as { episodes: { id: string; status: string }[] };
    expect(episodes.length).toBeGreaterThanOrEqual(3);
    const bad = await post("/api/episodes", { prompt: "", max_iterations: -1 });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/prompt.*max_iterations/);
  });
});

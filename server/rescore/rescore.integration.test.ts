import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { sampledLane } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";
import { modelSegment, promptSegment } from "../../src/test/trajectoryBuilders";
import { sendJson, startStub } from "../../test-support/sglang/stubUpstream";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { SglangClient } from "../sglang/sglangClient";
import { DRIFT_SCALE } from "../sim/logprobs";
import { type RunningSim, startSim } from "../sim/start";
import { differingModelTokens, rescoreTrajectory, tokenIdsOf } from "./rescoreTrajectory";

let services: Services;
let app: ReturnType<typeof buildApp>;
let episode: Trajectory;
const opened: { close(): Promise<void> }[] = [];

async function post(path: string, body: unknown) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function trajectoryOf(value: unknown): Trajectory {
  const read = readRolloutLine(JSON.stringify(value), 1);
  if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error(JSON.stringify(read));
  return read.trajectories[0];
}

async function storedEpisode(): Promise<{ id: string; t: Trajectory }> {
  const started = await post("/api/episodes", { prompt: "What is 15*7?", policy: "calculator" });
  const { id } = (await started.json()) as { id: string };
  await (await app.request(`/api/episodes/${id}/events`)).text();
  const fetched = await app.request(`/api/episodes/${id}`);
  return { id, t: trajectoryOf(await fetched.json()) };
}

function client(url: string): SglangClient {
  const c = new SglangClient({ upstreams: url, health: { intervalMs: 0, reprobeMs: 60_000 } });
  opened.push(c);
  return c;
}

async function sim(options: Parameters<typeof startSim>[1]): Promise<RunningSim> {
  const s = await startSim({ port: 0 }, options);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  const data = mkdtempSync(join(tmpdir(), "rl-rescore-"));
  services = await createServices(parseServerConfig({ data }));
  app = buildApp(services);
  episode = (await storedEpisode()).t;
});

afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await services.close();
});

const modelTokens = (t: Trajectory) =>
  t.segments.filter((s) => s.kind === "model").reduce((n, s) => n + s.tokenIds.length, 0);

describe("rescoring against the simulator", () => {
  it("gives back the sampled logprobs on every model token (no perturbation)", async () => {
    expect(modelTokens(episode)).toBeGreaterThan(5);
    expect(episode.segments.filter((s) => s.kind === "model").length).toBeGreaterThan(1);
    const { trajectory, result } = await rescoreTrajectory(services.sglang, episode);
    expect(differingModelTokens(episode, result.lane)).toEqual([]);
    expect(result.lane.slice(1).every((v) => typeof v === "number")).toBe(true);
    expect(trajectory.logprobLanes?.rescored).toEqual(result.lane);
    expect(trajectory.logprobLaneInfo?.rescored?.model).toContain("simulator");
    expect(trajectory.segments).toBe(episode.segments);
  });

  it("POST /api/rescore answers with the lane for an episode id, a record, and ids", async () => {
    const { id } = await storedEpisode();
    const byId = await post("/api/rescore", { episodeId: id });
    expect(byId.status).toBe(200);
    const json = (await byId.json()) as { lane: (number | null)[]; info: { source: string } };
    const stored = trajectoryOf(await (await app.request(`/api/episodes/${id}`)).json());
    expect(differingModelTokens(stored, json.lane)).toEqual([]);
    expect(json.info.source).toContain("sglang /generate rescore");
    const line = await (await app.request(`/api/episodes/${id}`)).text();
    const byRecord = await post("/api/rescore", { record: line });
    expect(((await byRecord.json()) as { lane: unknown }).lane).toEqual(json.lane);
    const byIds = await post("/api/rescore", {
      ids: tokenIdsOf(stored),
      temperature: stored.samplingParams?.temperature,
    });
    expect(((await byIds.json()) as { lane: unknown }).lane).toEqual(json.lane);
    expect((await post("/api/rescore", { episodeId: "nope" })).status).toBe(404);
    const bad = await post("/api/rescore", { record: '{"format":"rollout-lens/v1"}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^record /);
    expect((await post("/api/rescore", { ids: [] })).status).toBe(400);
  });

  it("--logprob-noise and --logprob-drift-after-tokens make rescoring disagree, deterministically", async () => {
    const noisy = await sim({ logprobNoise: 0.3 });
    const a = await rescoreTrajectory(client(noisy.url), episode);
    const b = await rescoreTrajectory(client(noisy.url), episode);
    expect(a.result.lane).toEqual(b.result.lane);
    const differing = differingModelTokens(episode, a.result.lane);
    expect(differing.length).toBe(modelTokens(episode));
    const after = Math.floor(tokenIdsOf(episode).length / 2);
    const drifting = await sim({ logprobDriftAfterTokens: after });
    const { result } = await rescoreTrajectory(client(drifting.url), episode);
    const sampled = sampledLane(episode);
    for (const k of differingModelTokens(episode, result.lane)) {
      expect(k).toBeGreaterThanOrEqual(after);
      expect(result.lane[k]).toBeCloseTo(Math.max(-40, (sampled[k] as number) * DRIFT_SCALE), 12);
    }
    expect(differingModelTokens(episode, result.lane).length).toBeGreaterThan(0);
  });

  it("rescores a stored 32k-token sequence in one /generate call, aligned token for token", async () => {
    const s = await sim({ contextLength: 32_768 });
    const sampler = client(s.url);
    const prompt = Array.from({ length: 32_000 }, (_, k) => 1000 + ((k * 37) % 20_000));
    const turn = await sampler.generate({
      inputIds: prompt,
      samplingParams: { max_new_tokens: 24, temperature: 1 },
    });
    const output = [...turn.outputIds];
    const t: Trajectory = {
      id: "long",
      source: { kind: "live" },
      format: "rollout-lens/v1",
      status: "completed",
      samplingParams: { temperature: 1 },
      segments: [
        promptSegment(prompt),
        modelSegment(output, 1, { logprobs: [...(turn.outputLogprobs ?? [])] }),
      ],
      metadata: {},
    };
    // A counting proxy in front of the simulator: the rescore must be exactly one /generate.
    const seen: string[] = [];
    const proxy = await startStub(async (req, res) => {
      seen.push(req.path);
      const reply = await fetch(`${s.url}${req.path}`, {
        method: req.method,
        ...(req.rawBody
          ? { body: req.rawBody, headers: { "content-type": "application/json" } }
          : {}),
      });
      sendJson(res, reply.status, await reply.text());
    });
    opened.push(proxy);
    const { result } = await rescoreTrajectory(client(proxy.url), t);
    expect(seen.filter((p) => p === "/generate")).toHaveLength(1);
    expect(result.lane).toHaveLength(32_000 + output.length);
    expect(output.length).toBe(24);
    expect(differingModelTokens(t, result.lane)).toEqual([]);
    expect(result.lane.slice(32_000)).toEqual(turn.outputLogprobs);
  });
});

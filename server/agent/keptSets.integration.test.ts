import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { laneConvention } from "../../src/core/mismatch/decompositionInputs";
import { keptSetReader } from "../../src/core/trajectory/keptSets";
import { SAMPLED_LANE } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";
import { runEpisodeThroughApi, TWO_CALL_CALCULATOR } from "../../test-support/episodeApi";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { type RunningSim, startSim } from "../sim/start";

/*
 * A live episode against a server that renormalises over its kept set and returns it (slime's
 * patched SGLang; the simulator's --logit-model --renormalize-kept) records the set on every
 * model token, through streaming and not, and its sampled lane reads as renormalised. Against
 * one that returns none (stock SGLang) nothing is recorded and the lane reads as not.
 */

const opened: { services: Services; sim: RunningSim }[] = [];

afterAll(async () => {
  for (const { services, sim } of opened) {
    await services.close();
    await sim.close();
  }
});

type App = ReturnType<typeof buildApp>;

async function server(renormalizeKept: boolean): Promise<App> {
  const sim = await startSim({ port: 0 }, { logitModel: true, renormalizeKept });
  const data = mkdtempSync(join(tmpdir(), "rl-kept-"));
  const services = await createServices(parseServerConfig({ data, sglang: [sim.url] }));
  opened.push({ services, sim });
  return buildApp(services);
}

function trajectoryOf(line: string): Trajectory {
  const read = readRolloutLine(line, 1);
  if (read.kind !== "trajectories") throw new Error(`episode line unreadable: ${line}`);
  return read.trajectories[0] as Trajectory;
}

async function episode(renormalizeKept: boolean, stream: boolean, app?: App) {
  const line = await runEpisodeThroughApi(app ?? (await server(renormalizeKept)), {
    ...TWO_CALL_CALCULATOR,
    stream,
  });
  return trajectoryOf(line);
}

/** Every model token's kept set holds the token; other tokens have none. */
function expectKeptOnModelTokens(t: Trajectory): void {
  const read = keptSetReader(t);
  if (!read) throw new Error("no kept sets recorded");
  let token = 0;
  for (const s of t.segments) {
    s.tokenIds.forEach((id, i) => {
      const kept = read(token + i);
      if (s.kind !== "model") expect(kept).toBeUndefined();
      // The sampler can only have picked a token it kept.
      else expect(kept).toContain(id);
    });
    token += s.tokenIds.length;
  }
}

describe("kept sets of a live episode", () => {
  it.each([false, true])("are recorded on every model token (stream %s)", async (stream) => {
    const t = await episode(true, stream);
    expect(t.segments.filter((s) => s.kind === "model").length).toBeGreaterThanOrEqual(2);
    expectKeptOnModelTokens(t);
    expect(laneConvention(t, SAMPLED_LANE).renormalized).toBe(true);
  });

  it("are kept by a branch forked inside a model segment, the parent's before the fork", async () => {
    const app = await server(true);
    const parent = await episode(true, false, app);
    const at = parent.segments.findIndex((s) => s.kind === "model");
    const start = parent.segments.slice(0, at).reduce((n, s) => n + s.tokenIds.length, 0);
    const body = { fork: { episode: parent.id, index: start + 2 } };
    const res = await app.request("/api/episodes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await (await app.request(`/api/episodes/${id}/events`)).text();
    const branch = trajectoryOf(await (await app.request(`/api/episodes/${id}`)).text());
    expectKeptOnModelTokens(branch);
    const forked = branch.segments[at]?.keptTokenIds?.slice(0, 2);
    expect(forked).toEqual(parent.segments[at]?.keptTokenIds?.slice(0, 2));
  });

  it("are absent when the server returns none, and the lane reads as not renormalised", async () => {
    const t = await episode(false, false);
    expect(t.segments.some((s) => s.keptTokenIds)).toBe(false);
    expect(keptSetReader(t)).toBeUndefined();
    expect(laneConvention(t, SAMPLED_LANE).renormalized).toBe(false);
  });
});

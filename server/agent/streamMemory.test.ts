import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import type { EpisodeEvent } from "../../src/core/wire/episodes";
import { expectWireEvent } from "../../test-support/wireEvents";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";
import { EpisodeStore } from "../store/episodeStore";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createToolRegistry } from "../tools/registry";
import { EpisodeManager } from "./episodeManager";
import { runEpisode } from "./runEpisode";
import { createSglangModelClient } from "./sglangModelClient";

// A streamed turn is kept for replay as the new tokens of each `delta` event plus its segment: the
// bytes kept grow with the turn's tokens, not with their square (cumulative text per event did).

let sim: RunningSim;
let sglang: SglangClient;
let manager: EpisodeManager;

beforeAll(async () => {
  // Delta-mode chunks keep the simulator's own output linear; the client folds them to snapshots.
  // A token every millisecond or so: a turn outlasts the runner's delta window (DELTA_WINDOW_MS),
  // so its deltas come in several events however fast the machine is.
  sim = await startSim({ port: 0 }, { streamMode: "delta", tokenLatencyMs: 1 });
  sglang = new SglangClient({ upstreams: sim.url });
  const client = await createSglangModelClient(sglang, "simulator");
  const tokenizer = await loadTokenizer("qwen3");
  const store = new EpisodeStore(mkdtempSync(join(tmpdir(), "rl-stream-")), writeRolloutLens);
  await store.open();
  const deps = { tokenizer, tokenizerName: "qwen3", client, registry: createToolRegistry([]) };
  manager = new EpisodeManager({
    store,
    maxRunning: 2,
    run: (request, sink) => runEpisode(deps, request, sink),
  });
});

afterAll(async () => {
  await manager.shutdown();
  await sglang.close();
  await sim.close();
});

/** Runs one streamed turn of `tokens` tokens; returns every event kept for replay. */
async function streamedTurn(tokens: number): Promise<EpisodeEvent[]> {
  const id = manager.start({
    prompt: "Think out loud.",
    policy: "long-winded",
    tools: [],
    stream: true,
    sampling_params: { max_new_tokens: tokens },
  });
  await new Promise<void>((resolve) => {
    manager.subscribe(id, 0, (_seq, event) => {
      if (event.type === "end") resolve();
    });
  });
  const kept: EpisodeEvent[] = [];
  manager.subscribe(id, 0, (_seq, event) => kept.push(event));
  return kept;
}

const bytes = (events: readonly EpisodeEvent[]) =>
  events.reduce((sum, e) => sum + JSON.stringify(e).length, 0);

describe("replay memory of a streamed turn", () => {
  it("grows linearly: a 4k-token turn keeps at most 4.5× the bytes of a 1k-token turn", async () => {
    const short = await streamedTurn(1000);
    const long = await streamedTurn(4000);
    for (const [events, n] of [
      [short, 1000],
      [long, 4000],
    ] as const) {
      for (const event of events) expectWireEvent(event);
      expect(events.at(-1)).toMatchObject({ type: "end", status: "truncated" });
      const deltas = events.filter((e) => e.type === "delta");
      // Streamed in parts (steps are gathered per DELTA_WINDOW_MS), which together carry the turn.
      expect(deltas.length).toBeGreaterThan(1);
      const model = events.flatMap((e) =>
        e.type === "segment" && e.segment.kind === "model" ? [e.segment] : [],
      );
      expect(model[0]?.tokenIds).toHaveLength(n);
      // The deltas carry exactly the turn's tokens and logprobs, each once.
      expect(deltas.flatMap((d) => d.ids)).toEqual(model[0]?.tokenIds);
      expect(deltas.flatMap((d) => d.logprobs)).toEqual(model[0]?.logprobs);
      expect(deltas.flatMap((d) => d.topLogprobs ?? [])).toEqual(model[0]?.topLogprobs);
    }
    const ratio = bytes(long) / bytes(short);
    console.log(`replay bytes: 1k ${bytes(short)}, 4k ${bytes(long)}, ratio ${ratio.toFixed(2)}`);
    expect(ratio).toBeLessThanOrEqual(4.5);
  }, 120_000);
});

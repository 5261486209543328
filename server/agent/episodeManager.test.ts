import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";
import type { EpisodeEvent } from "../../src/core/wire/episodes";
import { promptSegment } from "../../src/test/trajectoryBuilders";
import { expectWireEvent } from "../../test-support/wireEvents";
import { EpisodeStore } from "../store/episodeStore";
import { EpisodeManager, type RunEpisode, TooManyEpisodesError } from "./episodeManager";

const prompt = promptSegment([1, 2]);

function base(id: string): Trajectory {
  return {
    id,
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "running",
    segments: [],
    metadata: {},
  };
}

/** A runner that emits a prompt segment, then waits for the human (or an abort). */
const waitingRunner: RunEpisode = async (_request, sink) => {
  const segments: Segment[] = [];
  sink.setSnapshot(() => ({ ...base(sink.id), segments: segments.slice() }));
  segments.push(prompt);
  sink.emit({ type: "segment", index: 0, segment: prompt });
  try {
    const reply = await sink.askHuman("call_0000", "continue?", 60_000, sink.signal);
    sink.emit({ type: "end", status: "completed", reason: reply });
    return { ...base(sink.id), status: "completed", segments, metadata: { reply } };
  } catch (error) {
    sink.emit({ type: "end", status: "aborted", reason: String(error) });
    return { ...base(sink.id), status: "aborted", segments };
  }
};

async function manager(maxRunning: number) {
  const store = new EpisodeStore(mkdtempSync(join(tmpdir(), "rl-manager-")), writeRolloutLens);
  await store.open();
  return { store, manager: new EpisodeManager({ store, run: waitingRunner, maxRunning }) };
}

function collect(m: EpisodeManager, id: string, from = 0) {
  const seen: [number, EpisodeEvent][] = [];
  const ended = new Promise<void>((resolve) => {
    m.subscribe(id, from, (seq, event) => {
      expectWireEvent(event);
      seen.push([seq, event]);
      if (event.type === "end") resolve();
    });
  });
  return { seen, ended };
}

describe("EpisodeManager", () => {
  it("refuses episodes beyond the cap with a typed error", async () => {
    const { manager: m } = await manager(1);
    const first = m.start({ prompt: "a" });
    expect(() => m.start({ prompt: "b" })).toThrow(TooManyEpisodesError);
    m.abort(first);
    const { ended } = collect(m, first);
    await ended;
    expect(m.runningCount).toBe(0);
    expect(() => m.abort(first)).not.toThrow();
  });

  it("delivers the human reply, replays events to late subscribers and persists the episode", async () => {
    const { manager: m, store } = await manager(4);
    const id = m.start({ prompt: "a" });
    const early = collect(m, id);
    await new Promise((r) => setTimeout(r, 0));
    expect(early.seen.map(([, e]) => e.type)).toEqual(["segment", "waiting_human"]);
    expect(m.trajectory(id)?.status).toBe("running");
    expect(m.humanReply(id, "yes")).toBe(true);
    await early.ended;
    const late = collect(m, id, 1);
    await late.ended;
    expect(late.seen.map(([seq, e]) => [seq, e.type])).toEqual([
      [1, "waiting_human"],
      [2, "end"],
    ]);
    const line = JSON.parse(readFileSync(store.episodesPath, "utf8").trim());
    expect(line).toMatchObject({
      id,
      status: "completed",
      token_ids: [1, 2],
      metadata: { reply: "yes" },
    });
    expect(m.humanReply(id, "again")).toBe(false);
  });

  it("aborts a waiting episode and keeps its tokens", async () => {
    const { manager: m, store } = await manager(4);
    const id = m.start({ prompt: "a" });
    const { seen, ended } = collect(m, id);
    await new Promise((r) => setTimeout(r, 0));
    expect(m.abort(id)).toBe(true);
    await ended;
    expect(seen.at(-1)?.[1]).toMatchObject({ type: "end", status: "aborted" });
    const line = JSON.parse(readFileSync(store.episodesPath, "utf8").trim());
    expect(line).toMatchObject({ id, status: "aborted", token_ids: [1, 2] });
  });

  it("keeps what was recorded when a runner throws", async () => {
    const store = new EpisodeStore(mkdtempSync(join(tmpdir(), "rl-manager-")), writeRolloutLens);
    await store.open();
    const m = new EpisodeManager({
      store,
      maxRunning: 1,
      run: async (_request, sink) => {
        sink.setSnapshot(() => ({ ...base(sink.id), segments: [prompt] }));
        sink.emit({ type: "segment", index: 0, segment: prompt });
        throw new Error("bug");
      },
    });
    const id = m.start({ prompt: "a" });
    await collect(m, id).ended;
    expect(m.trajectory(id)).toMatchObject({
      status: "aborted",
      endReason: "internal error: Error: bug",
    });
    expect(m.trajectory(id)?.metadata).not.toHaveProperty("abort_reason");
  });

  it("shutdown resolves once the aborted episodes are persisted, without a polling timer", async () => {
    const { manager: m, store } = await manager(4);
    const ids = [m.start({ prompt: "a" }), m.start({ prompt: "b" })];
    await new Promise((r) => setTimeout(r, 0));
    // No timer ever fires from here on: a shutdown that polled on a timer would never return.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    try {
      await m.shutdown();
    } finally {
      vi.useRealTimers();
    }
    expect(m.runningCount).toBe(0);
    const lines = readFileSync(store.episodesPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.status]).sort()).toEqual(
      ids.map((id) => [id, "aborted"]).sort(),
    );
  });

  it("shutdown gives up after its time limit on a runner that ignores the abort", async () => {
    const store = new EpisodeStore(mkdtempSync(join(tmpdir(), "rl-manager-")), writeRolloutLens);
    await store.open();
    const m = new EpisodeManager({ store, maxRunning: 1, run: () => new Promise(() => {}) });
    m.start({ prompt: "a" });
    const started = Date.now();
    await m.shutdown(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(m.runningCount).toBe(1);
    // Nothing running: returns at once.
    await new EpisodeManager({ store, maxRunning: 1, run: () => new Promise(() => {}) }).shutdown();
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { EpisodeEvent } from "../../src/core/wire/episodes";
import { EpisodeStore, type StoredLine } from "../store/episodeStore";
import { EpisodeManager } from "./episodeManager";

// Found by the SSRF audit: an episode that failed at once was followed by a stream that never ended.
// The subscriber arrived after the runner returned but before the store had persisted the episode;
// `subscribe` saw `final` set, added no listener, and the `end` published a moment later was lost.
it("a subscriber arriving while a finished episode is being persisted still gets `end`", async () => {
  class SlowStore extends EpisodeStore {
    release: () => void = () => {};
    override async finish(trajectory: Trajectory): Promise<StoredLine> {
      await new Promise<void>((resolve) => {
        this.release = resolve;
      });
      return super.finish(trajectory);
    }
  }
  const store = new SlowStore(mkdtempSync(join(tmpdir(), "rl-race-")), writeRolloutLens);
  await store.open();
  let returned: () => void = () => {};
  const hasReturned = new Promise<void>((resolve) => {
    returned = resolve;
  });
  const manager = new EpisodeManager({
    store,
    maxRunning: 1,
    run: async (_request, sink) => {
      sink.emit({ type: "end", status: "aborted", reason: "upstream failure" });
      queueMicrotask(returned);
      return {
        id: sink.id,
        source: { kind: "live" },
        format: "rollout-lens/v1",
        status: "aborted",
        segments: [],
        metadata: {},
      };
    },
  });
  const id = manager.start({ prompt: "x" });
  await hasReturned;
  await new Promise((r) => setTimeout(r, 0));
  const seen: EpisodeEvent[] = [];
  manager.subscribe(id, 0, (_seq, event) => seen.push(event));
  expect(seen).toEqual([]);
  store.release();
  await expect.poll(() => seen.map((e) => e.type)).toEqual(["end"]);
});

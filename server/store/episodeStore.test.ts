import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/core/trajectory/types";
import { modelSegment, promptSegment } from "../../src/test/trajectoryBuilders";
import { EpisodeStore, type JournalHeader } from "./episodeStore";

const header: JournalHeader = {
  id: "ep1",
  source: { kind: "live" },
  format: "rollout-lens/v1",
  metadata: { note: "kept" },
};
const prompt = promptSegment([1, 2]);
const model = modelSegment([3], 1, { logprobs: [-0.5] });

function serialize(t: Trajectory) {
  return {
    id: t.id,
    status: t.status,
    ids: t.segments.flatMap((s) => s.tokenIds),
    metadata: t.metadata,
  };
}

function lines(path: string) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

async function openStore() {
  const dir = mkdtempSync(join(tmpdir(), "rl-store-"));
  const store = new EpisodeStore(dir, serialize);
  await store.open();
  return { dir, store };
}

describe("EpisodeStore", () => {
  it("appends finished episodes as whole lines and drops the journal", async () => {
    const { dir, store } = await openStore();
    store.begin(header);
    store.appendSegment("ep1", prompt);
    await store.finish({ ...header, status: "completed", segments: [prompt, model] });
    expect(lines(store.episodesPath)).toEqual([
      { id: "ep1", status: "completed", ids: [1, 2, 3], metadata: { note: "kept" } },
    ]);
    expect(readdirSync(join(dir, "running"))).toEqual([]);
  });

  it("recovers a running episode as aborted with its partial tokens after a restart", async () => {
    const { dir, store } = await openStore();
    store.begin(header);
    store.appendSegment("ep1", prompt);
    store.appendSegment("ep1", model);
    appendFileSync(join(dir, "running", "ep1.jsonl"), '{"segment":{"kind":"to'); // torn by a crash
    const restarted = new EpisodeStore(dir, serialize);
    const report = await restarted.open();
    expect(report.recovered).toEqual(["ep1"]);
    const [line] = lines(restarted.episodesPath);
    expect(line.status).toBe("aborted");
    expect(line.ids).toEqual([1, 2, 3]);
    expect(line.metadata.note).toBe("kept");
    expect(line.metadata.journal_problems).toEqual([expect.stringMatching(/:4: torn last line$/)]);
    expect(readdirSync(join(dir, "running"))).toEqual([]);
  });

  it("journals a batch of segments (a branch's prefix) as one line each, recovered in order", async () => {
    const { dir, store } = await openStore();
    store.begin(header);
    store.appendSegments("ep1", [prompt, model, { ...model, tokenIds: [4] }]);
    store.appendSegments("ep1", []);
    expect(lines(join(dir, "running", "ep1.jsonl"))).toHaveLength(4);
    const restarted = new EpisodeStore(dir, serialize);
    expect((await restarted.open()).recovered).toEqual(["ep1"]);
    expect(lines(restarted.episodesPath)[0].ids).toEqual([1, 2, 3, 4]);
  });

  it("moves a torn tail of the episodes file aside and reports it", async () => {
    const { dir, store } = await openStore();
    await store.finish({ ...header, status: "completed", segments: [prompt] });
    appendFileSync(store.episodesPath, '{"id":"ep2","sta');
    const report = await new EpisodeStore(dir, serialize).open();
    expect(report.tornBytes).toBe(16);
    expect(report.tornPath && readFileSync(report.tornPath, "utf8")).toBe('{"id":"ep2","sta');
    expect(lines(store.episodesPath)).toHaveLength(1);
  });

  it("treats a file with no newline at all as one torn line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rl-store-"));
    writeFileSync(join(dir, "episodes.jsonl"), "garbage");
    const report = await new EpisodeStore(dir, serialize).open();
    expect(report.tornBytes).toBe(7);
    expect(readFileSync(join(dir, "episodes.jsonl"), "utf8")).toBe("");
  });

  it("refuses ids that could escape the data directory", async () => {
    const { store } = await openStore();
    expect(() => store.begin({ ...header, id: "../x" })).toThrow(/invalid episode id/);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createFileIndex } from "../core/files/fileIndexer";
import { indexRecords, type RecordSource } from "../core/files/recordIndexer";
import { readRolloutValue } from "../core/formats/readRolloutLine";
import { defaultLanes } from "../core/mismatch/trajectoryMismatch";
import type { Trajectory } from "../core/trajectory/types";
import { byteSource, recordSourceOf } from "./recordFiles";
import type { ByteFileSource } from "./rolloutFileProtocol";

// A `.pt` dropped on the files page: the file worker reads it from the File by byte range,
// as it reads Parquet, and indexes its samples as rows.

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../test/fixtures/torch/${name}`, import.meta.url)));

function blobSource(name: string, bytes: Uint8Array, reads: number[]) {
  const source = byteSource({ kind: "blob", name, blob: new Blob([bytes.slice().buffer]) });
  return {
    size: source.size,
    read: (start: number, end: number) => {
      reads.push(end - start);
      return source.read(start, end);
    },
  };
}

const slimeBytes = fixture("slime-rollout.pt");

/** The slime fixture dump as the file worker opens it; each read's length goes to `reads`. */
async function slimeRecords(reads: number[] = []): Promise<RecordSource> {
  const source = blobSource("slime-rollout.pt", slimeBytes, reads);
  return (await recordSourceOf(
    source,
    "slime-rollout.pt",
    slimeBytes.length,
    undefined,
  )) as RecordSource;
}

/** Sample `k` of the slime fixture dump, read as the file worker reads it, into trajectories. */
async function slimeSample(k: number) {
  const [record] = await (await slimeRecords()).read(k, k + 1);
  const result = readRolloutValue(record as Record<string, unknown>, k + 1);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  return result.trajectories;
}

describe("a slime rollout dump (.pt) in the file worker", () => {
  it("indexes every sample as a row, reading the file by byte range", async () => {
    const reads: number[] = [];
    const records = await slimeRecords(reads);
    expect(records.rows).toBe(36);
    const index = createFileIndex("slime-rollout.pt");
    for await (const _ of indexRecords(records, index));
    expect(index.format).toBe("slime");
    expect(index.rows).toHaveLength(36);
    expect(index.rows[0]).toMatchObject({ line: 1, group: "0", reward: 1 });
    expect(index.rows[8]).toMatchObject({ status: "truncated" });
    // No read copies the whole file: the pickle once, the storages in ranges.
    expect(Math.max(...reads)).toBeLessThan(slimeBytes.length);
  });

  it("a sample opens with its lanes and its routed experts kept as routing metadata", async () => {
    const [t] = await slimeSample(0);
    const tokens = t?.segments.reduce((n, s) => n + s.tokenIds.length, 0) ?? 0;
    expect(Object.keys(t?.logprobLanes ?? {})).toEqual(["teacher"]);
    expect(t?.metadata.rollout_routed_experts).toHaveLength(tokens - 1);
    expect(t?.metadata.slime_dump).toEqual({ rollout_id: 3 });
    expect(t?.metadata.weight_versions).toEqual(["12"]);
  });

  it("the demoted model span of sample 5 (mask 0, real logprobs) is a model segment not trained", async () => {
    const segments = (await slimeSample(5))[0]?.segments ?? [];
    expect(segments.map((s) => (s.untrained ? "model-untrained" : s.kind))).toEqual([
      "prompt",
      "model-untrained",
      "tool",
      "model",
    ]);
  });
});

describe("a rollout dump with its train dumps (the server lists them beside it)", () => {
  const rollout = fixture("dump-details/rollout_data/3.pt");
  const train = fixture("dump-details/train_data/3_0.pt");
  const trainSource: ByteFileSource = {
    kind: "blob",
    name: "train_data/3_0.pt",
    blob: new Blob([train]),
  };

  async function firstTrajectory(trainDumps: readonly ByteFileSource[]) {
    const source = blobSource("rollout_data/3.pt", rollout, []);
    const records = (await recordSourceOf(source, "rollout_data/3.pt", rollout.length, undefined, {
      trainDumps,
    })) as RecordSource;
    const [record] = await records.read(0, 1);
    const result = readRolloutValue(record as Record<string, unknown>, 1);
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    return result.trajectories[0] as Trajectory;
  }

  it("joins the trainer and reference lanes, so the mismatch view compares trainer with sampled", async () => {
    const t = await firstTrajectory([trainSource]);
    expect(Object.keys(t.logprobLanes ?? {}).sort()).toEqual(["reference", "teacher", "trainer"]);
    expect(defaultLanes(t)).toEqual(["trainer", "sampled"]);
    // The fixture's trainer logprobs are the sampled ones plus noise of sd 0.01.
    const sampled = t.segments.flatMap((s) => s.logprobs);
    const trainer = t.logprobLanes?.trainer ?? [];
    const deltas = trainer.flatMap((v, k) => {
      const s = sampled[k];
      return v === null || s === null || s === undefined ? [] : [Math.abs(v - s)];
    });
    expect(deltas.length).toBeGreaterThan(10);
    expect(Math.max(...deltas)).toBeGreaterThan(0);
    expect(Math.max(...deltas)).toBeLessThan(0.1);
  });

  it("without them the dump has no trainer lane (nothing is made up)", async () => {
    const t = await firstTrajectory([]);
    expect(t.logprobLanes?.trainer).toBeUndefined();
  });

  it("a second rollout dump given as a train dump is an error naming both", async () => {
    const bogus: ByteFileSource = {
      kind: "blob",
      name: "train_data/3_1.pt",
      blob: new Blob([rollout]),
    };
    await expect(firstTrajectory([bogus])).rejects.toThrow(
      "2 rollout dumps read together (rollout_data/3.pt, train_data/3_1.pt): open one at a time",
    );
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readRolloutValue } from "../core/formats/readRolloutLine";
import { byteSource, recordSourceOf } from "./recordFiles";

// A SkyRL dumped_data/*.pkl dropped on the files page: the file worker reads it as the CLI does.

const name = "global_step_1_training_input.pkl";
const bytes = new Uint8Array(
  readFileSync(new URL(`../test/fixtures/dumps/skyrl/dumped_data/${name}`, import.meta.url)),
);

describe("a SkyRL training batch dump (.pkl) in the file worker", () => {
  it("reads one row per batch row, each with its trainer and reference lanes", async () => {
    const source = byteSource({ kind: "blob", name, blob: new Blob([bytes.slice().buffer]) });
    const records = await recordSourceOf(source, name, bytes.length, undefined);
    expect(records?.rows).toBe(4);
    const [record] = (await records?.read(3, 4)) ?? [];
    const read = readRolloutValue(record as Record<string, unknown>, 4);
    if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
    const [t] = read.trajectories;
    expect(t?.segments.flatMap((s) => s.tokenIds)).toEqual([
      ...[151644, 872, 198, 3036, 220, 18, 10, 18, 30, 151645, 198, 151644, 77091, 198],
      ...[2132, 374, 220, 21, 13, 151645],
    ]);
    expect(Object.keys(t?.logprobLanes ?? {}).sort()).toEqual(["reference", "trainer"]);
  });
});

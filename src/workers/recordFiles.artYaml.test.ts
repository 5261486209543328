import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readRolloutValue } from "../core/formats/readRolloutLine";
import { byteSource, recordSourceOf } from "./recordFiles";

// An ART trajectories/{split}/NNNN.yaml dropped on the files page: the file worker reads it whole
// as the CLI does (core/formats/artYaml.ts), one row per trajectory.

const name = "0003.yaml";
const bytes = new Uint8Array(
  readFileSync(new URL(`../test/fixtures/dumps/art/trajectories/train/${name}`, import.meta.url)),
);
const open = (data: Uint8Array) =>
  recordSourceOf(
    byteSource({ kind: "blob", name, blob: new Blob([data.slice().buffer]) }),
    name,
    data.length,
    undefined,
  );

describe("ART's trajectories YAML in the file worker", () => {
  it("reads one row per trajectory, in its group, with its conversation", async () => {
    const records = await open(bytes);
    expect(records?.rows).toBe(4);
    const [record] = (await records?.read(3, 4)) ?? [];
    const read = readRolloutValue(record as Record<string, unknown>, 4);
    if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
    expect(read.format).toBe("art");
    const [t] = read.trajectories;
    expect([t?.group, t?.reward]).toEqual(["1", 0.5]);
    expect(t?.messages?.at(-1)?.content).toBe("It is cloudy in Lima.");
  });

  it("names the file and the line of YAML that does not parse", async () => {
    const broken = new TextEncoder().encode("- metadata: {}\n  trajectories: [\n");
    await expect(open(broken)).rejects.toThrow(
      /^0003\.yaml: the ART trajectories YAML does not parse: line/,
    );
  });
});

import { describe, expect, it } from "vitest";
import { serverFileSource } from "./files";

describe("serverFileSource", () => {
  it("reads a file the server lists with --map through that mapping", () => {
    const source = serverFileSource({
      id: "f1",
      name: "dump.jsonl",
      map: "tokens=input_ids,mask=loss_mask",
    });
    expect(source).toMatchObject({
      kind: "http",
      name: "dump.jsonl",
      mapping: { layout: "full", tokenIds: "input_ids", lossMask: "loss_mask" },
    });
    expect(serverFileSource({ id: "f2", name: "x.jsonl" })).not.toHaveProperty("mapping");
  });

  it("reads a rollout dump's listed train dumps by their own ids", () => {
    const source = serverFileSource({
      id: "r1-abc",
      name: "rollout_data/3.pt",
      trainDumps: [{ id: "r1-abc~3_0.pt", name: "train_data/3_0.pt" }],
    });
    expect(source.trainDumps).toEqual([
      {
        kind: "http",
        name: "train_data/3_0.pt",
        infoUrl: "/api/files/r1-abc~3_0.pt",
        rangeUrl: "/api/files/r1-abc~3_0.pt/range",
      },
    ]);
    expect(serverFileSource({ id: "f2", name: "x.jsonl" })).not.toHaveProperty("trainDumps");
  });
});

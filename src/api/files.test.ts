import { describe, expect, it } from "vitest";
import { serverFileSource } from "./files";

describe("serverFileSource", () => {
  it("reads a file the server lists with --map through that mapping", () => {
    const source = serverFileSource("f1", "dump.jsonl", "tokens=input_ids,mask=loss_mask");
    expect(source).toMatchObject({
      kind: "http",
      name: "dump.jsonl",
      mapping: { layout: "full", tokenIds: "input_ids", lossMask: "loss_mask" },
    });
    expect(serverFileSource("f2", "x.jsonl")).not.toHaveProperty("mapping");
  });
});

import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { readLines } from "../files/readLines";
import { demoRolloutFiles, serveConfigFrom } from "./serveOptions";

describe("serveConfigFrom", () => {
  it("lists the bundled demo rollouts when no file is named", () => {
    const config = serveConfigFrom({}, []);
    expect(config.files.map((f) => basename(f))).toEqual([
      "qwen3-drift-examples.jsonl",
      "slime-example.jsonl",
      "strands-example.jsonl",
    ]);
  });

  it("lists only the named files, or none with --no-demo", () => {
    expect(serveConfigFrom({}, ["run.jsonl"]).files).toEqual(["run.jsonl"]);
    expect(serveConfigFrom({ "no-demo": true }, []).files).toEqual([]);
  });

  it("passes the security flags through (view shares them)", () => {
    const config = serveConfigFrom(
      { host: "0.0.0.0", token: "t0ken-t0ken-t0ken", "max-body-bytes": "4096" },
      [],
    );
    expect(config).toMatchObject({
      host: "0.0.0.0",
      token: "t0ken-t0ken-t0ken",
      maxBodyBytes: 4096,
    });
  });

  it("ships demo rollouts that load without a bad line", async () => {
    for (const path of demoRolloutFiles()) {
      for await (const { lineNo, text } of readLines(path)) {
        const result = readRolloutLine(text, lineNo, undefined, path);
        expect(result.kind, `${path}:${lineNo}`).not.toBe("error");
      }
    }
  });
});

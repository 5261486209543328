import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { readLines } from "../files/readLines";
import type { ServeFlags } from "./commandFlags";
import { demoRolloutFiles, serveConfigFrom } from "./serveOptions";
import { parseCommand, serveSpec } from "./spec";

/** The config the `serve` command line gives, parsed as the CLI parses it. */
function configOf(args: string[]) {
  const parsed = parseCommand<ServeFlags>(serveSpec(), args);
  if (typeof parsed === "number") throw new Error(`exit ${parsed}`);
  return serveConfigFrom(parsed.values, parsed.positionals);
}

describe("serveConfigFrom", () => {
  it("lists the bundled demo rollouts when no file is named", () => {
    const config = configOf([]);
    expect(config.files.map((f) => basename(f))).toEqual([
      "qwen3-drift-examples.jsonl",
      "slime-example.jsonl",
      "strands-example.jsonl",
    ]);
  });

  it("lists only the named files, or none with --no-demo", () => {
    expect(configOf(["run.jsonl"]).files).toEqual(["run.jsonl"]);
    expect(configOf(["--no-demo"]).files).toEqual([]);
    expect(serveConfigFrom({ demo: false }, []).files).toEqual([]);
  });

  it("passes the security flags through (view shares them)", () => {
    const config = configOf([
      "--host=0.0.0.0",
      "--token",
      "t0ken-t0ken-t0ken",
      "--max-body-bytes",
      "4096",
      "--allowed-host",
      "a.example",
      "--allowed-host",
      "b.example",
    ]);
    expect(config).toMatchObject({
      host: "0.0.0.0",
      token: "t0ken-t0ken-t0ken",
      maxBodyBytes: 4096,
      allowedHosts: ["a.example", "b.example"],
    });
  });

  it("applies the defaults --help shows", () => {
    expect(configOf(["--no-demo"])).toMatchObject({
      port: 5173,
      host: "127.0.0.1",
      sglangAttempts: 6,
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

// check_mismatch's `replay`: the corrections the CLI replays with `mismatch --correction A,B`,
// answered with the same numbers `mismatch --json` prints for the same file and thresholds.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { connectMcp } from "../../test-support/mcpClient";
import type { MismatchFlags } from "../commands/commandFlags";
import { runMismatch } from "../commands/mismatch";
import { mismatchSpec, parseCommand } from "../commands/spec";

const tmp = mkdtempSync(join(tmpdir(), "rl-mcp-replay-"));
const served = join(tmp, "nemo.jsonl");
let client: Client;
let close: () => Promise<void>;

interface Answer {
  readonly isError?: boolean;
  readonly content: readonly { text?: string }[];
}

async function call(args: Record<string, unknown>): Promise<Answer> {
  return (await client.callTool({ name: "check_mismatch", arguments: args })) as Answer;
}

/** `rollout-lens mismatch ARGS --json`, run as the CLI runs it; its parsed report. */
async function cliReport(args: string[]): Promise<{ files: { replays: unknown[] }[] }> {
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: () => {} };
  const parsed = parseCommand<MismatchFlags>(mismatchSpec(), [...args, "--json"], io);
  expect(typeof parsed).not.toBe("number");
  if (typeof parsed !== "number") await runMismatch(parsed, io);
  return JSON.parse(out.join("\n"));
}

beforeAll(async () => {
  // NeMo-RL rows carry the trainer's and the sampler's logprobs: two lanes to compare.
  writeFileSync(served, `${fixtureLines("reference-nemo-rl.jsonl").join("\n")}\n`);
  const mcp = await connectMcp(
    { files: [served], dataDir: join(tmp, "data"), appUrl: "http://x" },
    "replay",
  );
  client = mcp.client;
  close = mcp.close;
});

afterAll(async () => {
  await close?.();
});

describe("check_mismatch replay", () => {
  it("gives each correction's replay as `mismatch --correction … --json` does", async () => {
    const answer = await call({
      file: "f1",
      replay: ["icepop", "m2po", "token-mask"],
      thresholds: { icepop: { alpha: 0.999, beta: 1.0005 } },
    });
    expect(answer.isError, answer.content[0]?.text).not.toBe(true);
    const body = JSON.parse(answer.content[0]?.text ?? "{}");
    const cli = await cliReport([
      served,
      "--correction",
      "icepop,m2po,token-mask",
      "--icepop-alpha",
      "0.999",
      "--icepop-beta",
      "1.0005",
    ]);
    const expected = (cli.files[0]?.replays ?? []) as Record<string, unknown>[];
    expect(expected).toHaveLength(3);
    expect(body.replays).toHaveLength(3);
    body.replays.forEach((r: Record<string, unknown>, i: number) => {
      const { rowsDropped, rowsUnchecked, ...rest } = expected[i] as Record<string, unknown>;
      expect(r).toMatchObject(rest);
      expect(r.rows_dropped).toEqual(rowsDropped);
      expect(r.rows_unchecked).toEqual(rowsUnchecked);
    });
    // The thresholds were used: IcePop's tight band masks tokens the defaults keep.
    expect(body.replays[0]).toMatchObject({
      name: "icepop",
      params: { alpha: 0.999, beta: 1.0005 },
    });
    expect(body.replays[0].masked).toBeGreaterThan(0);
  });

  it("answers no replays unless asked, and an unknown threshold in the CLI's words", async () => {
    const plain = JSON.parse((await call({ file: "f1" })).content[0]?.text ?? "{}");
    expect(plain.replays).toBeUndefined();
    const bad = await call({
      file: "f1",
      replay: ["icepop"],
      thresholds: { icepop: { gamma: 1 } },
    });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/icepop has no threshold "gamma"/);
    const stray = await call({
      file: "f1",
      replay: ["m2po"],
      thresholds: { icepop: { alpha: 1 } },
    });
    expect(stray.isError).toBe(true);
    expect(stray.content[0]?.text).toMatch(
      /thresholds given for icepop, which replay does not name/,
    );
    const unknown = await call({ file: "f1", replay: ["nope"] });
    expect(unknown.isError).toBe(true);
  });
});

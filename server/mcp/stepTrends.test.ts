// step_trends on a prime-rl output directory: one entry per step, the run charts' statistics
// (the step-stats code itself), each step's files linked into the app.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { connectMcp } from "../../test-support/mcpClient";
import { createDriftTokenizers } from "../drift/driftTokenizers";
import { createFileRegistry } from "../files/fileRegistry";
import { computeStepStats } from "../files/stepStats";

const run = fixturePath("prime-rl-run");
const dataDir = mkdtempSync(join(tmpdir(), "rl-mcp-steps-"));
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  const mcp = await connectMcp({ files: [run], dataDir, appUrl: "http://app" });
  client = mcp.client;
  close = mcp.close;
});

afterAll(async () => {
  await close();
});

describe("step_trends", () => {
  it("gives each step of a run directory its statistics and linked files", async () => {
    const answer = (await client.callTool({ name: "step_trends", arguments: {} })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(answer.isError, answer.content[0]?.text).not.toBe(true);
    const { steps } = JSON.parse(answer.content[0]?.text ?? "{}") as {
      steps: {
        step: number;
        files: { id: string; url: string }[];
        stats: { trajectories: number };
      }[];
    };
    expect(steps.map((s) => s.step)).toEqual([0, 1]);
    const registry = createFileRegistry([run], dataDir);
    const tokenizers = createDriftTokenizers({ jobs: 1 });
    try {
      for (const step of steps) {
        let trajectories = 0;
        for (const { id, url } of step.files) {
          expect(url).toBe(`http://app/files/srv-${id}`);
          const file = registry.find(id);
          expect(file?.run?.step).toBe(step.step);
          trajectories += (await computeStepStats(file?.path ?? "", tokenizers)).trajectories;
        }
        expect(step.stats.trajectories).toBe(trajectories);
      }
    } finally {
      await tokenizers.close();
    }
  });
});

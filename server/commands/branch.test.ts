import {
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import {
  type RolloutLensLine,
  rolloutLensLineSchema,
} from "../../src/core/formats/rolloutLensSchema";
import type { Trajectory } from "../../src/core/trajectory/types";
import { runCli } from "../../test-support/runCli";
import { loadTokenizer } from "../../test-support/tokenizers";
import type { EpisodeSink } from "../agent/episodeSink";
import { runEpisode } from "../agent/runEpisode";
import { createSglangModelClient } from "../agent/sglangModelClient";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";
import { createToolRegistry } from "../tools/registry";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-branch-"));
const file = join(dir, "rows.jsonl");
let parent: Trajectory;
let parentIds: number[];
let modelStart: number;
let sim: RunningSim;

function lines(path: string): RolloutLensLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => rolloutLensLineSchema.parse(JSON.parse(l)));
}

// The parent: a calculator episode recorded against the simulator (prompt, model, tool, model),
// on line 2 of the file after another row, so row 1 is the one branched.
beforeAll(async () => {
  sim = await startSim({ port: 0 }, { tokenizer: "qwen3" });
  const sglang = new SglangClient({ upstreams: [sim.url] });
  const client = await createSglangModelClient(sglang, "simulator");
  const tokenizer = await loadTokenizer("qwen3");
  const deps = { tokenizer, tokenizerName: "qwen3", client, registry: createToolRegistry() };
  const record = (id: string, prompt: string) => {
    const sink: EpisodeSink = {
      id,
      signal: new AbortController().signal,
      emit: () => {},
      askHuman: () => Promise.reject(new Error("no human")),
      setSnapshot: () => {},
    };
    return runEpisode(deps, { prompt, policy: "calculator" }, sink);
  };
  const first = await record("ep_first", "What is 2+2?");
  parent = await record("ep_parent", "What is 15*7?");
  await sglang.close();
  expect(parent.segments.map((s) => s.kind)).toEqual(["prompt", "model", "tool", "model"]);
  parentIds = parent.segments.flatMap((s) => [...s.tokenIds]);
  modelStart = parent.segments[0]?.tokenIds.length ?? 0;
  writeFileSync(
    file,
    `${stringifyJsonLine(writeRolloutLens(first))}\n${stringifyJsonLine(writeRolloutLens(parent))}\n`,
  );
}, 60_000);

afterAll(async () => {
  await sim?.close();
});

describe("rollout-lens branch", () => {
  it("branches a row at a model token twice: the parent's ids first, lineage set, FILE untouched", async () => {
    const before = readFileSync(file);
    const out = join(dir, "branches.jsonl");
    const n = modelStart + 2;
    const {
      code,
      out: printed,
      err,
    } = await runCli([
      "branch",
      file,
      "--row",
      "1",
      "--index",
      String(n),
      "--n",
      "2",
      "--temperature",
      "1",
      "--out",
      out,
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const written = lines(out);
    expect(written).toHaveLength(2);
    for (const branch of written) {
      expect(branch.parent_id).toBe("ep_parent");
      expect(branch.fork_index).toBe(n);
      expect(branch.token_ids.slice(0, n)).toEqual(parentIds.slice(0, n));
      expect(branch.sampling_params?.temperature).toBe(1);
      expect(printed).toContain(`${branch.id} ${branch.status}`);
    }
    expect(new Set(written.map((b) => b.id)).size).toBe(2);
    expect(new Set(written.map((b) => b.sampling_params?.sampling_seed)).size).toBe(2);
    expect(printed).toMatch(
      /tokens, (departs from the parent at token \d+|same ids as the parent)/,
    );
    expect(readFileSync(file).equals(before)).toBe(true);

    // Appended, never overwritten: a second run adds its line after the first two.
    const again = await runCli(["branch", file, "--line", "2", "--index", String(n), "--out", out]);
    expect(again.code).toBe(0);
    expect(lines(out)).toHaveLength(3);
    expect(lines(out)[2]?.parent_id).toBe("ep_parent");
  }, 60_000);

  it("branches at a tool segment with an edited tool result (--tool-result)", async () => {
    const toolStart = modelStart + (parent.segments[1]?.tokenIds.length ?? 0);
    const out = join(dir, "edited.jsonl");
    const args = ["--row", "1", "--index", String(toolStart), "--tool-result", "106"];
    const { code, err } = await runCli(["branch", file, ...args, "--out", out]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const [branch] = lines(out);
    expect(branch?.fork_index).toBe(toolStart);
    expect(branch?.fork_edit).toEqual({ tool_results: ["106"] });
    expect(branch?.token_ids.slice(0, toolStart)).toEqual(parentIds.slice(0, toolStart));
    expect(branch?.segments.find((x) => x.kind === "tool")?.text).toContain("106");
  }, 60_000);

  it.each([
    [
      () => ["--row", "1", "--index", String(parentIds.length + 5)],
      /rows\.jsonl line 2 \(trajectory ep_parent\): fork: fork index \d+ is outside the trajectory/,
    ],
    [() => ["--row", "7", "--index", "3"], /rows\.jsonl has no row 7 \(2 rows\)/],
    [() => ["--line", "3", "--index", "3"], /rows\.jsonl has no row 0 on line 3/],
    [() => ["--index", "3"], /give the row to branch: --row R/],
    [() => ["--row", "1", "--index", "3", "--temperature", "hot"], /--temperature .*"hot"/],
    [() => ["--row", "1", "--index", "3", "--n", "65"], /--n \(n\): n must be at most 64/],
    [() => ["--row", "1", "--index", "x"], /--index \(fork\.index\): /],
    [
      () => ["--row", "1", "--index", String(modelStart + 2), "--tokenizer", "llama3"],
      /line 2 \(trajectory ep_parent\): fork: .*cannot be continued by llama3: .* the ids are not llama3's/,
    ],
  ])("a bad fork exits 2 with the reason (%#)", async (args, reason) => {
    const before = readFileSync(file);
    const out = join(dir, `bad-${Math.random()}.jsonl`);
    const { code, err } = await runCli(["branch", file, ...args(), "--out", out]);
    expect(code).toBe(2);
    expect(err).toMatch(reason);
    expect(existsSync(out)).toBe(false);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("exits 1 when a branch ends aborted (an upstream that aborts every request)", async () => {
    const aborting = await startSim(
      { port: 0 },
      { tokenizer: "qwen3", faults: { rateAbortBeforePrefill: 1 } },
    );
    try {
      const out = join(dir, "aborted.jsonl");
      const args = ["--row", "1", "--index", String(modelStart + 2), "--sglang", aborting.url];
      const { code, out: printed } = await runCli(["branch", file, ...args, "--out", out]);
      expect(code).toBe(1);
      expect(printed).toMatch(/ aborted /);
      const [branch] = lines(out);
      expect(branch?.status).toBe("aborted");
      expect(branch?.parent_id).toBe("ep_parent");
    } finally {
      await aborting.close();
    }
  }, 60_000);

  it.each([
    ["FILE itself", (path: string) => path],
    [
      "a symlink to FILE",
      (path: string) => {
        symlinkSync(path, `${path}.sym`);
        return `${path}.sym`;
      },
    ],
    [
      "a hard link to FILE",
      (path: string) => {
        linkSync(path, `${path}.hard`);
        return `${path}.hard`;
      },
    ],
  ])("refuses to write its branches to %s", async (_name, outOf) => {
    const before = readFileSync(file);
    const out = outOf(file);
    const { code, err } = await runCli([
      "branch",
      file,
      "--row",
      "1",
      "--index",
      "3",
      "--out",
      out,
    ]);
    expect(code).toBe(2);
    expect(err).toMatch(/--out: .* the input .*: an output is never written over an input/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("refuses a text-only table's row before any tokenizer or upstream: no ids to fork from (exit 2)", async () => {
    // Record 1's prompt spans two lines of the CSV's text; the row is named by its record.
    const csv = join(dir, "scores.csv");
    writeFileSync(csv, 'prompt,completion,reward\n"a\nb",c,1\nd,e,0\n');
    const out = join(dir, "text-branches.jsonl");
    const args = ["--row", "1", "--index", "1", "--sglang", sim.url, "--out", out];
    const { code, out: printed, err } = await runCli(["branch", csv, ...args]);
    expect(code).toBe(2);
    expect(printed).toBe("");
    expect(err).toMatch(
      new RegExp(
        `^branch: ${csv} record 2 \\(trajectory L2\\): no token ids to fork from: this file holds decoded text only`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it("lists its options with their defaults in --help", async () => {
    const { code, out } = await runCli(["branch", "--help"]);
    expect(code).toBe(0);
    expect(out).toMatch(/--n <K>[\s\S]*?\(default: "1"\)/);
    expect(out).toMatch(
      /--tokenizer <NAME\|PATH>[\s\S]*\(default: the record's, else its ids'\s+family, else qwen3\)/,
    );
    expect(out).toContain("--out <OUT>");
  });
});

import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { serverFileListSchema, stepStatsSchema } from "../../src/core/files/filesWire";
import type { StepStats } from "../../src/core/files/stepStats";
import { DEFAULT_NEAR_K } from "../../src/core/forest/groupForest";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { primeRolloutParquet } from "../../src/test/parquetFixtures";
import { groupsOfFile } from "../commands/groups";
import { fixedDriftTokenizer } from "../drift/driftTokenizers";
import { filesRoutes } from "../routes/files";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createFileRegistry, registerFiles, runFileId } from "./fileRegistry";
import { listRunDirectory } from "./runDirectory";
import { computeStepStats, createStepStatsCache } from "./stepStats";

const root = mkdtempSync(join(tmpdir(), "rl-run-"));
const run = join(root, "run");
const nemo = fixtureLines("reference-nemo-rl.jsonl");
const verl = fixtureLines("reference-verl.jsonl");
// Real atropos groups (Llama-3): line 3 is a group of identical samples, a zero-variance group.
const rubiks = fixtureLines("atropos-rubiks-trimmed.jsonl");

beforeAll(() => {
  mkdirSync(join(run, "step_10"), { recursive: true });
  mkdirSync(join(run, "logs"), { recursive: true });
  writeFileSync(join(run, "train_data_step2.jsonl"), `${nemo.join("\n")}\n`);
  writeFileSync(join(run, "train_data_step1.jsonl"), `${nemo[0]}\n`);
  writeFileSync(join(run, "step_10", "rollouts.jsonl"), `${verl.join("\n")}\n`);
  writeFileSync(join(root, "groups.jsonl"), `${rubiks.join("\n")}\n`);
  writeFileSync(join(run, "config.json"), "{}");
  writeFileSync(join(run, "logs", "stdout.txt"), "not a rollout");
});

const runId = (name: string) => runFileId("r1", name);

describe("run directories on the server", () => {
  it("lists the step files in step order, apart from files naming no step", () => {
    const listed = listRunDirectory(run);
    expect(listed.steps.map((s) => [s.step, s.path])).toEqual([
      [1, join(run, "train_data_step1.jsonl")],
      [2, join(run, "train_data_step2.jsonl")],
      [10, join(run, "step_10", "rollouts.jsonl")],
    ]);
    expect(listed.withoutStep).toEqual([join(run, "config.json")]);
  });

  it("registers a directory argument as a run, next to plain files", () => {
    const plain = join(root, "plain.jsonl");
    writeFileSync(plain, `${nemo[0]}\n`);
    const files = registerFiles([plain, run], join(root, "data"));
    expect(files.map((f) => [f.id, f.name, f.run])).toEqual([
      ["f1", "plain.jsonl", undefined],
      [
        runId("train_data_step1.jsonl"),
        "train_data_step1.jsonl",
        { id: "r1", name: "run", step: 1, split: "train" },
      ],
      [
        runId("train_data_step2.jsonl"),
        "train_data_step2.jsonl",
        { id: "r1", name: "run", step: 2, split: "train" },
      ],
      [
        runId("step_10/rollouts.jsonl"),
        "step_10/rollouts.jsonl",
        { id: "r1", name: "run", step: 10 },
      ],
      ["episodes", "episodes.jsonl", undefined],
    ]);
  });

  it("lists steps a trainer writes after the server started, ids from their paths", () => {
    const live = join(root, "live");
    mkdirSync(live);
    writeFileSync(join(live, "train_data_step10.jsonl"), `${nemo[0]}\n`);
    writeFileSync(join(live, "train_data_step30.jsonl"), `${nemo[0]}\n`);
    let clock = 0;
    const registry = createFileRegistry([live], join(root, "data-live"), {
      rescanMs: 1000,
      now: () => clock,
    });
    const steps = () => registry.list().map((f) => [f.id, f.run?.step]);
    expect(steps()).toEqual([
      [runId("train_data_step10.jsonl"), 10],
      [runId("train_data_step30.jsonl"), 30],
      ["episodes", undefined],
    ]);
    writeFileSync(join(live, "train_data_step20.jsonl"), `${nemo[0]}\n`);
    clock = 500; // within the rescan interval: not listed yet
    expect(steps()).toHaveLength(3);
    clock = 1500;
    expect(steps()).toEqual([
      [runId("train_data_step10.jsonl"), 10],
      [runId("train_data_step20.jsonl"), 20],
      [runId("train_data_step30.jsonl"), 30],
      ["episodes", undefined],
    ]);
    expect(registry.find(runId("train_data_step20.jsonl"))?.name).toBe("train_data_step20.jsonl");
  });

  it("reads Parquet step files too (Tinker's completions_{step}.parquet, ZSTD)", async () => {
    const tinker = join(root, "tinker");
    mkdirSync(tinker);
    for (const step of [12, 3]) {
      writeFileSync(
        join(tinker, `completions_${step}.parquet`),
        new Uint8Array(primeRolloutParquet(2, "ZSTD")),
      );
    }
    const { steps } = listRunDirectory(tinker);
    expect(steps.map((s) => s.step)).toEqual([3, 12]);
    const tokenizers = fixedDriftTokenizer({ tokenizer: await loadTokenizer("qwen3") });
    const stats = await computeStepStats(steps[0]?.path ?? "", tokenizers);
    // prime-rl rewards 1, 0, 0; 13 prompt + 4 response tokens each.
    expect(stats).toMatchObject({ trajectories: 3, length: 17, driftChecked: 3 });
    expect(stats.reward).toBeCloseTo(1 / 3, 6);
  }, 30_000);

  it("computes a step's reward, length, drift rate and mismatch; a text file says why drift is off", async () => {
    const tokenizers = fixedDriftTokenizer({ tokenizer: await loadTokenizer("qwen3") });
    const step2 = await computeStepStats(join(run, "train_data_step2.jsonl"), tokenizers);
    expect(step2).toMatchObject({ trajectories: 2, reward: 0.5, length: 25, driftChecked: 2 });
    expect(step2.driftRate).toBeTypeOf("number");
    expect(step2.mismatch).toBeCloseTo(0.0231 / 12, 6);
    const text = await computeStepStats(join(run, "step_10", "rollouts.jsonl"), tokenizers);
    expect(text.driftRate).toBeUndefined();
    expect(text.driftNote).toMatch(/decoded text only/);
    expect(text.length).toBeUndefined();
  }, 30_000);

  it("counts a step's zero-variance groups and duplicate samples as `groups` finds them", async () => {
    const tokenizers = fixedDriftTokenizer({ tokenizer: await loadTokenizer("llama3") });
    const path = join(root, "groups.jsonl");
    const stats = await computeStepStats(path, tokenizers);
    const report = await groupsOfFile(path, DEFAULT_NEAR_K);
    const many = report.groups.filter((g) => g.size >= 2);
    expect(stats.groups).toEqual({
      groups: many.length,
      zeroVariance: many.filter((g) => g.zeroVariance).length,
      samples: many.reduce((n, g) => n + g.size, 0),
      duplicates: many.reduce(
        (n, g) => n + g.duplicateSets.reduce((k, set) => k + set.length - 1, 0),
        0,
      ),
    });
    expect(stats.groups?.zeroVariance).toBeGreaterThan(0);
    expect(stats.groups?.duplicates).toBeGreaterThan(0);
    expect(stepStatsSchema.parse(stats).groups).toEqual(stats.groups);
  }, 30_000);
});

const fake = (stats: Partial<StepStats>) => stats as StepStats;

describe("step statistics cache", () => {
  it("computes once per path + size + mtime, in memory and across restarts (on disk)", async () => {
    const dir = join(root, "cache");
    const file = join(root, "cached.jsonl");
    writeFileSync(file, `${nemo[0]}\n`);
    let computed = 0;
    const compute = async () => fake({ trajectories: ++computed });
    const first = createStepStatsCache({ dir, compute });
    expect(await first.get(file)).toEqual({ trajectories: 1 });
    expect(await first.get(file)).toEqual({ trajectories: 1 });
    expect(computed).toBe(1);
    // A new server (fresh memory) reads the cache file, not the rollout file.
    const restarted = createStepStatsCache({ dir, compute });
    expect(await restarted.get(file)).toEqual({ trajectories: 1 });
    expect(computed).toBe(1);
    expect(readdirSync(dir)).toHaveLength(1);
    // The file grows (a trainer still writing the step): computed again.
    appendFileSync(file, `${nemo[1]}\n`);
    expect(await restarted.get(file)).toEqual({ trajectories: 2 });
    expect(computed).toBe(2);
  });

  it("shares one computation between concurrent requests, and retries after a failure", async () => {
    const file = join(root, "shared.jsonl");
    writeFileSync(file, "x\n");
    let calls = 0;
    let fail = true;
    const compute = async () => {
      calls += 1;
      if (fail) throw new Error("boom");
      return fake({ trajectories: 3 });
    };
    const cache = createStepStatsCache({ dir: join(root, "cache2"), compute });
    const both = await Promise.allSettled([cache.get(file), cache.get(file)]);
    expect(both.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(calls).toBe(1);
    fail = false;
    expect(await cache.get(file)).toEqual({ trajectories: 3 });
  });
});

describe("/api/files for a run directory", () => {
  it("lists the run's files with their steps and serves step statistics from a worker thread", async () => {
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [run], dataDir: join(root, "data-route") }),
    );
    const list = serverFileListSchema.parse(await (await app.request("/api/files")).json());
    expect(list.files.map((f) => f.run?.step)).toEqual([1, 2, 10, undefined]);
    const res = await app.request(`/api/files/${runId("train_data_step1.jsonl")}/step-stats`);
    expect(res.status).toBe(200);
    const stats = stepStatsSchema.parse(await res.json());
    expect(stats).toMatchObject({ trajectories: 1, reward: 1, length: 17, driftChecked: 1 });
    expect((await app.request("/api/files/f9/step-stats")).status).toBe(404);
  }, 60_000);

  it("answers 202 pending while a computation outlasts the wait, then the statistics", async () => {
    let finish: (stats: StepStats) => void = () => {};
    const slow = new Promise<StepStats>((resolve) => {
      finish = resolve;
    });
    let calls = 0;
    const stepStats = createStepStatsCache({
      dir: join(root, "cache-slow"),
      compute: () => {
        calls += 1;
        return slow;
      },
    });
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [run], dataDir: join(root, "d"), stepStats, stepStatsWaitMs: 20 }),
    );
    const step2 = runId("train_data_step2.jsonl");
    const first = await app.request(`/api/files/${step2}/step-stats`);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ pending: true });
    finish(fake({ trajectories: 7 }));
    const second = await app.request(`/api/files/${step2}/step-stats`);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ trajectories: 7 });
    expect(calls).toBe(1);
  });
});

describe("/api/files with --map (records no known producer wrote)", () => {
  it("lists each CLI file with its map; step statistics read through it", async () => {
    const dumps = join(root, "dumps");
    mkdirSync(dumps);
    const qwen = await loadTokenizer("qwen3");
    const line = (reward: number) =>
      JSON.stringify({
        prompt_ids: qwen.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"),
        completion_ids: [...qwen.encode("Hello there."), 151645],
        score: reward,
      });
    writeFileSync(join(dumps, "step_1.jsonl"), `${line(1)}\n${line(0)}\n`);
    const map = "prompt=prompt_ids,response=completion_ids,reward=score";
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [dumps], dataDir: join(root, "data-map"), map }),
    );
    const list = serverFileListSchema.parse(await (await app.request("/api/files")).json());
    expect(list.files.map((f) => [f.name, f.map])).toEqual([
      ["step_1.jsonl", map],
      ["episodes.jsonl", undefined],
    ]);
    const stats = stepStatsSchema.parse(
      await (await app.request(`/api/files/${runId("step_1.jsonl")}/step-stats`)).json(),
    );
    expect(stats).toMatchObject({ trajectories: 2, errors: 0, reward: 0.5, driftChecked: 2 });
    // Without the map the same file has no record to read.
    const tokenizers = fixedDriftTokenizer({ tokenizer: qwen });
    const plain = await computeStepStats(join(dumps, "step_1.jsonl"), tokenizers);
    expect(plain).toMatchObject({ trajectories: 0, errors: 2 });
  }, 60_000);
});

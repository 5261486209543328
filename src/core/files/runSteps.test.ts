import { describe, expect, it } from "vitest";
import {
  chartedStepFiles,
  isRunFileName,
  isRunSideFile,
  orderRunSteps,
  recordStepOf,
  runPositionLabel,
  runPositionOf,
  stepOfPath,
} from "./runSteps";

describe("stepOfPath", () => {
  it.each([
    ["run/train_data_step12.jsonl", 12], // NeMo-RL
    ["run/rollouts_step_7.parquet", 7],
    ["run/step-3.jsonl", 3],
    ["run/global_step_40/data.jsonl", 40],
    ["rollout_data_dir/15.jsonl", 15], // verl
    ["run/0005.jsonl", 5], // zero-padded
    ["run/step_3/rollouts.jsonl", 3],
    ["run/step_3/shard_10.jsonl", 3], // the folder's step, not the shard number
    ["run/8/samples.parquet", 8],
    ["run/completions_21.parquet", 21], // Tinker
    ["run/step_2/train_data_step9.jsonl", 9], // the name wins over the folder
    ["C:\\runs\\a\\step_4\\x.jsonl", 4],
    ["run/step_6/train-00001-of-00004.parquet", 6],
    ["run/train-00001-of-00004.parquet", undefined], // a shard counter, not a step
    ["run/steps.jsonl", undefined],
    ["run/rollouts.jsonl", undefined],
    ["run/stepfather/x.jsonl", undefined],
    ["run/config.json", undefined],
  ])("%s -> %s", (path, step) => {
    expect(stepOfPath(path)).toBe(step);
  });
});

describe("orderRunSteps", () => {
  it("sorts by step as numbers, not as text", () => {
    const paths = [10, 2, 1, 20, 3].map((n) => `run/${n}.jsonl`);
    expect(orderRunSteps(paths).steps.map((s) => s.step)).toEqual([1, 2, 3, 10, 20]);
  });

  it("keeps files that share a step (shards) in natural path order", () => {
    const { steps } = orderRunSteps([
      "run/step_2/shard_10.jsonl",
      "run/step_1/b.jsonl",
      "run/step_2/shard_2.jsonl",
      "run/step_1/a.jsonl",
    ]);
    expect(steps).toEqual([
      { path: "run/step_1/a.jsonl", step: 1 },
      { path: "run/step_1/b.jsonl", step: 1 },
      { path: "run/step_2/shard_2.jsonl", step: 2 },
      { path: "run/step_2/shard_10.jsonl", step: 2 },
    ]);
  });

  it("sets aside readable files without a step, and drops files that are not rollouts", () => {
    const result = orderRunSteps([
      "run/train_data_step2.jsonl",
      "run/metrics.json",
      "run/README.md",
      "run/.hidden_step1.jsonl",
      "run/train_data_step1.jsonl",
      "run/all.parquet",
    ]);
    expect(result.steps.map((s) => s.path)).toEqual([
      "run/train_data_step1.jsonl",
      "run/train_data_step2.jsonl",
    ]);
    expect(result.withoutStep).toEqual(["run/all.parquet", "run/metrics.json"]);
  });

  it("mixes formats and naming patterns in one run", () => {
    const { steps } = orderRunSteps([
      "run/completions_3.parquet",
      "run/step_1/rollouts.jsonl",
      "run/train_data_step2.jsonl",
    ]);
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
  });

  it("knows the readable extensions", () => {
    expect(["a.jsonl", "a.ndjson", "a.json", "a.PARQUET"].every(isRunFileName)).toBe(true);
    expect(["a.txt", "a.csv", ".a.jsonl"].some(isRunFileName)).toBe(false);
  });
});

describe("the frameworks' own dump layouts", () => {
  it.each([
    // prime-rl FileMonitor
    ["out/rollouts/step_12/train/all/traces.jsonl", { step: 12, split: "train", subset: "all" }],
    [
      "out/rollouts/step_12/eval/effective/traces.jsonl",
      { step: 12, split: "eval", subset: "effective" },
    ],
    // NeMo-RL: train and validation dumps of one step
    ["logs/train_data_step3.jsonl", { step: 3, split: "train" }],
    ["logs/val_data_step3.jsonl", { step: 3, split: "eval" }],
    // miles --dump-details: eval rollouts are `eval_{id}`
    ["dump/trajectory/eval_4.jsonl", { step: 4, split: "eval" }],
    // SkyRL
    ["export/dumped_evals/global_step_20_evals/gsm8k.jsonl", { step: 20, split: "eval" }],
    // AReaL: the version folder, not the task id
    ["log/rollout/3/1742.jsonl", { step: 3, split: "train" }],
    ["log/eval-rollout/5/17.jsonl", { step: 5, split: "eval" }],
    // Tinker cookbook
    ["log/iteration_000012/train_rollout_summaries.jsonl", { step: 12, split: "train" }],
    ["log/iteration_000012/eval_gsm8k_rollout_summaries.jsonl", { step: 12, split: "eval" }],
    // ART: trajectories/{split}/{step:04d}.yaml
    ["art/models/m/trajectories/train/0003.yaml", { step: 3, split: "train" }],
    ["art/models/m/trajectories/val/0000.yaml", { step: 0, split: "eval" }],
    // verl: says neither, charted as training
    ["rollout_data_dir/15.jsonl", { step: 15 }],
  ])("%s", (path, want) => {
    expect(runPositionOf(path)).toEqual(want);
  });

  it("labels a step file's place in its run", () => {
    expect(runPositionLabel({ step: 3, split: "eval", subset: "all" })).toBe("step 3, eval, all");
    expect(runPositionLabel({ step: 3 })).toBe("step 3");
  });

  it("charts training files only, and prime-rl's `all` subset over `effective` of the same step", () => {
    const files = [
      { step: 0, split: "train", subset: "all" },
      { step: 0, split: "train", subset: "effective" },
      { step: 1, split: "train", subset: "effective" },
      { step: 1, split: "eval", subset: "all" },
      { step: 2 },
    ] as const;
    expect(chartedStepFiles(files)).toEqual([files[0], files[2], files[4]]);
  });

  it("knows a trainer's metrics files are not rollouts", () => {
    expect(isRunSideFile("out/metrics.jsonl")).toBe(true);
    expect(isRunSideFile("log/checkpoints.jsonl")).toBe(true);
    expect(isRunSideFile("out/rollouts/step_1/train/all/traces.jsonl")).toBe(false);
  });
});

describe("slime/miles rollout dumps in a run", () => {
  it("SkyRL's dumped_data/global_step_{N}_training_input.pkl is step N", () => {
    expect(isRunFileName("global_step_3_training_input.pkl")).toBe(true);
    expect(
      orderRunSteps([
        "dumped_data/global_step_12_training_input.pkl",
        "dumped_data/global_step_3_training_input.pkl",
      ]).steps,
    ).toEqual([
      { path: "dumped_data/global_step_3_training_input.pkl", step: 3 },
      { path: "dumped_data/global_step_12_training_input.pkl", step: 12 },
    ]);
  });

  it("rollout_data/{id}.pt is the step of its rollout id", () => {
    expect(isRunFileName("3.pt")).toBe(true);
    expect(orderRunSteps(["rollout_data/12.pt", "rollout_data/3.pt"]).steps).toEqual([
      { path: "rollout_data/3.pt", step: 3 },
      { path: "rollout_data/12.pt", step: 12 },
    ]);
  });
});

describe("recordStepOf", () => {
  it("reads a record's step as a number, or as text of digits (TRL's table writes it so)", () => {
    expect(recordStepOf({ step: 12 })).toBe(12);
    expect(recordStepOf({ step: "10" })).toBe(10);
    for (const step of ["1.5", "-1", "", "ten", 1.5, -1, null, undefined]) {
      expect(recordStepOf({ step })).toBeUndefined();
    }
  });
});

import { describe, expect, it } from "vitest";
import type { TorchFile } from "../torch/torchFile";
import type { TorchDump } from "./torchRecords";
import {
  isTrainDumpName,
  rolloutDumpPlace,
  type TrainJoin,
  trainDumpNames,
  trainJoinOf,
  trainSampleFor,
  withTrainSample,
} from "./trainDump";

const torch: TorchFile = {
  file: { byteLength: 0, slice: () => new ArrayBuffer(0) },
  root: {},
  storages: new Map(),
};
const dump = (samples: unknown[]): TorchDump => ({ kind: "train", torch, samples, header: {} });

describe("train dumps joined to their rollout dump", () => {
  it("joins by rollout_position when every sample has one", async () => {
    const join = trainJoinOf([dump([{ rollout_position: 1, sample_index: 9, log_probs: [-1] }])]);
    expect(join?.key).toBe("rollout_position");
    expect(await trainSampleFor(join as TrainJoin, 1, 0)).toMatchObject({ log_probs: [-1] });
    expect(await trainSampleFor(join as TrainJoin, 0, 9)).toBeUndefined();
  });

  it("falls back to sample_index (the rollout sample's index) when positions are missing", async () => {
    const join = trainJoinOf([
      dump([
        { sample_index: 9, log_probs: [-1] },
        { rollout_position: 0, sample_index: 4 },
      ]),
    ]);
    expect(join?.key).toBe("sample_index");
    expect(await trainSampleFor(join as TrainJoin, 0, 9)).toMatchObject({ log_probs: [-1] });
  });

  it("puts response-only trainer and reference logprobs after the prompt, keeps advantages and entropy", () => {
    const record = {
      tokens: [1, 2, 3, 4],
      response_length: 2,
      logprob_lanes: { teacher: [null, null, -1, -2] },
    };
    const out = withTrainSample(record, {
      log_probs: [-0.5, -0.25],
      ref_log_probs: [-0.75, -0.5],
      advantages: [1, 1],
      entropy: [0.1, 0.2],
      rollout_log_probs: [-0.5, -0.25],
      data_parallel_rank: 1,
    });
    expect(out.logprob_lanes).toEqual({
      teacher: [null, null, -1, -2],
      trainer: [null, null, -0.5, -0.25],
      reference: [null, null, -0.75, -0.5],
    });
    expect(out).toMatchObject({
      advantages: [1, 1],
      entropy: [0.1, 0.2],
      train_dump: { data_parallel_rank: 1 },
    });
  });
});

describe("which train dumps belong to a rollout dump", () => {
  it("places rollout_data/{id}.pt (and eval_{id}) beside train_data/", () => {
    expect(rolloutDumpPlace("/runs/d/rollout_data/3.pt")).toEqual({
      base: "/runs/d",
      id: "3",
      trainDir: "/runs/d/train_data",
    });
    expect(rolloutDumpPlace("C:\\d\\rollout_data\\eval_12.pt")?.trainDir).toBe("C:\\d\\train_data");
    expect(rolloutDumpPlace("/runs/d/3.pt")).toBeUndefined();
    expect(rolloutDumpPlace("/runs/d/rollout_data/x3.pt")).toBeUndefined();
  });

  it("takes {id}.pt and {id}_{rank}.pt, never another rollout's or another name", () => {
    expect(isTrainDumpName("3", "3.pt")).toBe(true);
    expect(isTrainDumpName("3", "3_12.pt")).toBe(true);
    for (const name of ["33.pt", "33_0.pt", "3_.pt", "3_a.pt", "3_0.pt.tmp", "../3.pt", "3_0/1.pt"])
      expect(isTrainDumpName("3", name), name).toBe(false);
    expect(trainDumpNames("3", ["3_10.pt", "4_0.pt", "3_2.pt", "3.pt", "notes.txt"])).toEqual([
      "3.pt",
      "3_2.pt",
      "3_10.pt",
    ]);
  });
});

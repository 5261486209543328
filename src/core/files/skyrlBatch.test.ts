import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { namedBytes } from "../../../test-support/namedBytes";
import { fixturePath } from "../../test/fixtureFiles";
import { readRolloutValue } from "../formats/readRolloutLine";
import { unpickle } from "../torch/pickle";
import { flattenSegments } from "../trajectory/flatten";
import type { Trajectory } from "../trajectory/types";
import { padRows, rowOf, skyrlRow, skyrlTensors } from "./skyrlBatch";
import { isBarePickleHead } from "./sniffFile";
import { rolloutDumpSource } from "./torchRecords";

// SkyRL's dumped_data/global_step_N_training_input.pkl (dump_data: a plain pickle.dump of a
// TrainingInputBatch), written by scripts/fixtures/skyrl_fixtures.py as SkyRL writes it, read
// through rolloutDumpSource: the record source the CLI (server/files/binaryLines) and the
// browser's file worker (workers/recordFiles) both use.

const PKL = "dumps/skyrl/dumped_data/global_step_1_training_input.pkl";
// The fixture's Qwen3 ids: "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n", ...
const P1 = [151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645, 198, 151644, 77091, 198];
const P2 = [151644, 872, 198, 3036, 220, 18, 10, 18, 30, 151645, 198, 151644, 77091, 198];
const R1 = [
  151667, 198, 11613, 5519, 1378, 374, 3040, 624, 151668, 271, 2132, 374, 220, 19, 13, 151645,
];
const R2 = [
  151667, 198, 19641, 5519, 2326, 374, 4743, 624, 151668, 271, 2132, 374, 220, 21, 13, 151645,
];
const pklBytes = () => new Uint8Array(readFileSync(fixturePath(PKL)));

const named = namedBytes;

async function trajectories(bytes: Uint8Array): Promise<Trajectory[]> {
  const source = await rolloutDumpSource([named("global_step_1_training_input.pkl", bytes)]);
  const records = await source.read(0, source.rows);
  return records.flatMap((record, k) => {
    const read = readRolloutValue(record as Record<string, unknown>, k + 1);
    if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
    return read.trajectories;
  });
}

describe("a SkyRL dumped_data/*.pkl, unconverted", () => {
  it("is a bare pickle the dump readers take", () => {
    expect(isBarePickleHead(pklBytes().subarray(0, 16))).toBe(true);
  });

  it("reads one trajectory per batch row, left padding removed by attention_mask", async () => {
    const ts = await trajectories(pklBytes());
    expect(ts).toHaveLength(4);
    const ids = ts.map((t) => flattenSegments(t.segments).tokenIds);
    expect(ids).toEqual([
      [...P1, ...R1],
      [...P1, 2132, 374, 220, 19, 13, 151645],
      [...P2, ...R2],
      [...P2, 2132, 374, 220, 21, 13, 151645],
    ]);
    // policy_prompt_boundaries [(0, 2), (2, 4)] are the GRPO groups
    expect(ts.map((t) => t.group)).toEqual(["0", "0", "1", "1"]);
    // Read as slime Samples, named for the tool that wrote the file.
    expect(new Set(ts.map((t) => t.format))).toEqual(new Set(["skyrl-batch"]));
  });

  it("takes loss mask and sampled logprobs from the right-aligned response columns", async () => {
    const [, second, third] = await trajectories(pklBytes());
    const row1 = flattenSegments((second as Trajectory).segments);
    expect(row1.lossMask).toEqual([...Array(15).fill(0), ...Array(6).fill(1)]);
    expect(row1.logprobs.slice(14, 17)).toEqual([
      null,
      expect.closeTo(-0.06, 6),
      expect.closeTo(-0.11, 6),
    ]);
    const row2 = flattenSegments((third as Trajectory).segments);
    expect(row2.lossMask).toEqual([
      ...Array(14).fill(0),
      ...Array(8).fill(1),
      0,
      0,
      ...Array(6).fill(1),
    ]);
    expect((third as Trajectory).segments.map((s) => s.kind)).toEqual([
      "prompt",
      "model",
      "tool",
      "model",
    ]);
  });

  it("makes action_log_probs the trainer lane and bfloat16 base_action_log_probs the reference lane", async () => {
    const [, second] = await trajectories(pklBytes());
    const lanes = (second as Trajectory).logprobLanes ?? {};
    expect(Object.keys(lanes).sort()).toEqual(["reference", "trainer"]);
    // row 1's first response token: the trainer's recompute is 0.5 below the sampler's
    expect(lanes.trainer?.slice(0, 15)).toEqual(Array(15).fill(null));
    expect(lanes.trainer?.[15]).toBeCloseTo(-0.56, 6);
    // bfloat16 keeps ~3 significant digits: -0.08 reads back as -0.080078125
    expect(lanes.reference?.[15]).toBeCloseTo(-0.08, 2);
    expect((second as Trajectory).metadata.advantages).toEqual(Array(6).fill(-0.5));
  });

  it("leaves out the rows pad_training_input_batch added (metadata.pad_size)", async () => {
    const root = unpickle(pklBytes()) as Record<string, unknown>;
    const seq = (root.batch_dict as Record<string, Record<string, unknown>>).sequences;
    expect(seq?.shape).toEqual([6, 31]);
    expect(root.metadata).toMatchObject({ pad_size: 2 });
    expect(await trajectories(pklBytes())).toHaveLength(4);
    expect(padRows({ pad_size: 2 }, 6)).toBe(2);
    expect(padRows({}, 6)).toBe(0);
    expect(() => padRows({ pad_size: 7 }, 6)).toThrow(
      "metadata.pad_size 7 is not a count of the batch's 6 rows",
    );
  });

  it("keeps the batch metadata and the other per-token tensors under skyrl_batch", async () => {
    const [first] = await trajectories(pklBytes());
    const batch = (first as Trajectory).metadata.skyrl_batch as Record<string, unknown>;
    expect(batch.row).toBe(0);
    expect(batch.kl).toHaveLength(16);
    expect(batch.metadata).toMatchObject({ response_length: 16, global_step: 1 });
  });
});

describe("tensors the reader does not map", () => {
  it("are named under skyrl_batch.not_read (a TensorList of pixel_values too)", async () => {
    const root = unpickle(pklBytes()) as Record<string, unknown>;
    const dict = root.batch_dict as Record<string, unknown>;
    dict.pixel_values = { format: "tensor_list", items: [] };
    dict.custom_scores = dict.kl;
    const row = skyrlRow(await skyrlTensors(root), root.metadata, 0, 0);
    const batch = row.skyrl_batch as Record<string, unknown>;
    expect(batch.not_read).toEqual(["pixel_values", "custom_scores"]);
  });
});

describe("a damaged or foreign pickle gets a clear error", () => {
  it("a truncated dump names the pickle byte where it ran out", async () => {
    const bytes = pklBytes();
    await expect(trajectories(bytes.subarray(0, bytes.length - 700))).rejects.toThrow(
      /^pickle byte \d+: .*(truncated|remain)/,
    );
  });

  it("a pickle of something else says what it holds and what is read", async () => {
    // pickle.dumps({}, protocol=4)
    const other = new Uint8Array([0x80, 0x04, 0x7d, 0x94, 0x2e]);
    await expect(trajectories(other)).rejects.toThrow(
      /a bare Python pickle holding no SkyRL TrainingInputBatch/,
    );
  });

  it("a response_mask that is not left padding then 1s names the row and field", async () => {
    const root = unpickle(pklBytes()) as Record<string, unknown>;
    const tensors = await skyrlTensors(root);
    const mask = [0, 1, 2, 3].map((r) => rowOf(tensors, "response_mask", r));
    (mask[2] as number[])[3] = 0;
    expect(() => skyrlRow({ ...tensors, response_mask: mask }, root.metadata, 2, 1)).toThrow(
      "row 2: response_mask is not left padding (0s) then 1s",
    );
  });

  it("a numpy tensor whose bytes fall short of its shape says so", async () => {
    const root = unpickle(pklBytes()) as Record<string, unknown>;
    const dict = root.batch_dict as Record<string, Record<string, unknown>>;
    const seq = dict.sequences as Record<string, unknown>;
    seq.data = (seq.data as Uint8Array).subarray(0, 16);
    await expect(skyrlTensors(root)).rejects.toThrow(
      /^batch_dict.sequences: a numpy array of shape \[6, 31\] holds 16 bytes, fewer than its 186 int64 values/,
    );
  });
});

describe("dumps of older SkyRL versions read the same", () => {
  const legacy = (era: string) =>
    new Uint8Array(
      readFileSync(fixturePath(`dumps/skyrl/legacy/${era}/global_step_1_training_input.pkl`)),
    );
  const view = (ts: Trajectory[]) =>
    ts.map((t) => ({
      flat: flattenSegments(t.segments),
      lanes: t.logprobLanes,
      group: t.group,
      advantages: t.metadata.advantages,
    }));

  for (const era of ["before-1379", "before-982"]) {
    it(`${era}: the dict items (torch's storage pickle) give the current dump's trajectories`, async () => {
      const root = unpickle(legacy(era)) as Record<string, unknown>;
      // the items are tensors through _load_from_bytes, not the state's batch_dict
      expect(root.sequences).toBeDefined();
      expect(view(await trajectories(legacy(era)))).toEqual(view(await trajectories(pklBytes())));
    });

    it(`${era}: the state's batch_dict holds the same tensors as the items`, async () => {
      const root = unpickle(legacy(era)) as Record<string, unknown>;
      const fromItems = await skyrlTensors(root);
      const { __class__, batch_dict, batch_size, device, metadata } = root;
      const fromState = await skyrlTensors({ __class__, batch_dict, batch_size, device, metadata });
      expect(Object.keys(fromState).sort()).toEqual(Object.keys(fromItems).sort());
      const present = Object.keys(fromItems).filter((k) => fromItems[k] !== null);
      expect(present).toContain("base_action_log_probs");
      for (const key of present) {
        for (const r of [0, 1, 2, 3]) {
          expect(rowOf(fromState, key, r)).toEqual(rowOf(fromItems, key, r));
        }
      }
    });
  }
});

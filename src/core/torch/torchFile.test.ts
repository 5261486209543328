import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJsonLine } from "../formats/jsonLine";
import { openTorchFile, plainValues } from "./torchFile";
import type { ByteRangeFile } from "./zipEntries";

const FIXTURES = new URL("../../test/fixtures/torch/", import.meta.url);

/** A file read by byte range, counting the bytes each read asks for. */
function memoryFile(bytes: Uint8Array, reads: number[] = []): ByteRangeFile {
  return {
    byteLength: bytes.length,
    slice: (start, end = bytes.length) => {
      reads.push(end - start);
      return bytes.slice(start, end).buffer;
    },
  };
}

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, FIXTURES)));
}

describe("openTorchFile on files real torch.save wrote (scripts/fixtures/torch_fixtures.py)", () => {
  it("reads back every value torch wrote: dtypes, strides, offsets, numpy, OrderedDict, bytes, big ints", async () => {
    const torch = await openTorchFile(memoryFile(fixture("values.pt")));
    const read = (await plainValues(torch, torch.root)) as Record<string, unknown>;
    const parsed = parseJsonLine(readFileSync(new URL("values.expected.json", FIXTURES), "utf8"));
    if (!parsed.ok) throw new Error(parsed.message);
    const expected = parsed.value as Record<string, unknown>;
    expect(Object.keys(read)).toEqual(Object.keys(expected));
    for (const key of Object.keys(expected)) expect([key, read[key]]).toEqual([key, expected[key]]);
  });

  it("reads only the storages a part of the value uses", async () => {
    const reads: number[] = [];
    const bytes = fixture("slime-rollout.pt");
    const torch = await openTorchFile(memoryFile(bytes, reads));
    const samples = (torch.root as { samples: unknown[] }).samples;
    reads.length = 0;
    const first = (await plainValues(torch, samples[0])) as Record<string, unknown>;
    expect(first.rollout_routed_experts).toHaveLength((first.tokens as number[]).length - 1);
    // data.pkl is read once when opening; then a fraction of the storages' bytes.
    const storageBytes = [...torch.storages.values()].reduce((a, e) => a + e.size, 0);
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(storageBytes / 2);
  });

  it("keeps an unknown dataclass as a named placeholder (miles' RewardSpec)", async () => {
    const torch = await openTorchFile(memoryFile(fixture("dump-details/rollout_data/3.pt")));
    const samples = (torch.root as { samples: unknown[] }).samples;
    const first = (await plainValues(torch, samples[0])) as Record<string, unknown>;
    expect(first.reward_spec).toEqual({
      __class__: "miles.utils.types.RewardSpec",
      rm_type: "math",
      custom_rm_path: null,
    });
    expect(first.adapter).toEqual({
      __class__: "miles.utils.types.AdapterRef",
      name: "math",
      slot: 1,
    });
    // numpy int32 [T-1, L, K]
    const routed = first.rollout_routed_experts as number[][][];
    expect(routed).toHaveLength((first.tokens as number[]).length - 1);
    expect(routed[0]).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });
});

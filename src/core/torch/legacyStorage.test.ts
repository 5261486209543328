import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../test/fixtureFiles";
import { loadLegacyStorage } from "./legacyStorage";
import { unpickleAt } from "./pickle";
import { tensorValues } from "./torchFile";
import { TensorRef } from "./torchValues";

// torch's storage pickle, `_load_from_bytes(b)` with `b` a legacy torch.save blob, as found in a
// SkyRL dump from before #1379 (scripts/fixtures/skyrl_fixtures.py, torch 1.13's own pickle).

const MAGIC = [0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19];

/** The first `_load_from_bytes` blob of the fixture: the BINBYTES (length-prefixed) holding it. */
function firstBlob(): Uint8Array {
  const bytes = new Uint8Array(
    readFileSync(fixturePath("dumps/skyrl/legacy/before-1379/global_step_1_training_input.pkl")),
  );
  for (let k = 4; k < bytes.length; k++) {
    if (MAGIC.every((b, j) => bytes[k + j] === b)) {
      const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(k - 4, true);
      return bytes.slice(k, k + length);
    }
  }
  throw new Error("no legacy blob in the fixture");
}

/** Where the pickle starting at `start` ends. */
const unpickleEnd = (bytes: Uint8Array, start: number) => unpickleAt(bytes, start).end;

describe("a legacy torch.save storage blob (_load_from_bytes)", () => {
  it("reads the storage's type, count and bytes: the fixture's first tensor, sequences", () => {
    const { ref } = loadLegacyStorage(firstBlob());
    expect(ref).toMatchObject({ type: "int64", numel: 186 });
    const tensor = new TensorRef(ref, 0, [6, 31], [31, 1]);
    const values = tensorValues(tensor, ref.data as Uint8Array) as number[][];
    // row 1: left-padded with <|endoftext|>, then the prompt's Qwen3 ids and "It is 4.<|im_end|>"
    expect(values[1]?.slice(0, 10)).toEqual(Array(10).fill(151643));
    expect(values[1]?.slice(10, 13)).toEqual([151644, 872, 198]);
    expect(values[1]?.slice(25)).toEqual([2132, 374, 220, 19, 13, 151645]);
  });

  it("a blob cut inside its data names the storage and the bytes left", () => {
    const blob = firstBlob();
    expect(() => loadLegacyStorage(blob.subarray(0, blob.length - 9))).toThrow(
      /^a pickled torch storage \(_load_from_bytes\): storage \d+ declares 186 int64 values at byte \d+, 1479 bytes remain$/,
    );
  });

  it("a blob without the magic number, or cut in its pickles, says which part", () => {
    const blob = firstBlob();
    const wrong = blob.slice();
    wrong[4] = 0x00;
    expect(() => loadLegacyStorage(wrong)).toThrow("no legacy torch.save magic number at byte 0");
    expect(() => loadLegacyStorage(blob.subarray(0, 60))).toThrow(/its sys info: pickle byte \d+/);
    expect(() => loadLegacyStorage("text")).toThrow("its argument is not bytes");
  });

  it("a blob whose storage record pickles another blob is refused, not recursed into", () => {
    const blob = firstBlob();
    // the storage record (4th pickle) replaced by `_load_from_bytes(blob)` itself
    const inner = [...blob];
    const len = [inner.length & 0xff, (inner.length >> 8) & 0xff, 0, 0];
    const call = [
      ...[0x80, 0x02, 0x63], // PROTO 2, GLOBAL
      ...new TextEncoder().encode("torch.storage\n_load_from_bytes\n"),
      ...[0x42, ...len, ...inner], // BINBYTES
      ...[0x85, 0x52, 0x2e], // TUPLE1 REDUCE STOP
    ];
    const info = unpickleEnd(blob, 15 + 6); // after the magic, protocol and sys info pickles
    const forged = new Uint8Array([...blob.subarray(0, info), ...call]);
    expect(() => loadLegacyStorage(forged)).toThrow(
      "a pickled torch storage (_load_from_bytes): its storage record: a pickled torch storage (_load_from_bytes): a storage pickled inside a storage's own blob",
    );
  });
});

import { readFileSync } from "node:fs";
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { op, pickle, storedZip } from "../../../test-support/torchZip";
import { crc32 } from "./crc32";
import { openTorchFile, plainValues } from "./torchFile";
import { type ByteRangeFile, entryDataOffset, readZipEntries, TorchFileError } from "./zipEntries";

const fileOf = (bytes: Uint8Array): ByteRangeFile => ({
  byteLength: bytes.length,
  slice: (start, end = bytes.length) => bytes.slice(start, end).buffer,
});

const ROLLOUT = new URL("../../test/fixtures/torch/slime-rollout.pt", import.meta.url);

/** Reads every sample of a slime rollout dump, as the record source does. */
async function readAll(bytes: Uint8Array): Promise<unknown> {
  const torch = await openTorchFile(fileOf(bytes));
  return plainValues(torch, torch.root);
}

/** The fixture with one byte flipped at the start of entry `name`'s data. */
async function flipped(name: (entry: string) => boolean): Promise<[Uint8Array, string]> {
  const bytes = new Uint8Array(readFileSync(ROLLOUT));
  const entries = await readZipEntries(fileOf(bytes));
  const entry = [...entries.values()].find((e) => name(e.name) && e.size > 0);
  if (!entry) throw new Error("no such entry in the fixture");
  const at = await entryDataOffset(fileOf(bytes), entry);
  bytes[at] = (bytes[at] as number) ^ 0xff;
  return [bytes, entry.name];
}

describe("crc32", () => {
  it("matches zlib's on empty, short and long inputs", () => {
    const long = new Uint8Array(100_000).map((_, k) => (k * 31 + 7) & 0xff);
    for (const bytes of [new Uint8Array(0), new TextEncoder().encode("abc"), long]) {
      expect(crc32(bytes)).toBe(zlibCrc32(bytes));
    }
    // Every length around the 8-byte steps, and a view that starts inside its buffer.
    for (let n = 0; n <= 40; n++) {
      const bytes = long.subarray(3, 3 + n);
      expect([n, crc32(bytes)]).toEqual([n, zlibCrc32(bytes)]);
    }
  });
});

describe("a damaged torch.save file is an error, never different numbers", () => {
  it("the real dump reads when intact (its entries carry torch's CRC-32)", async () => {
    const entries = await readZipEntries(fileOf(new Uint8Array(readFileSync(ROLLOUT))));
    expect([...entries.values()].every((e) => e.crc32 !== 0)).toBe(true);
    const root = (await readAll(new Uint8Array(readFileSync(ROLLOUT)))) as { samples: unknown[] };
    expect(root.samples.length).toBe(36);
  });

  it("a flipped byte in a tensor storage names the entry and says the file is damaged", async () => {
    const [bytes, name] = await flipped((n) => /\/data\/0$/.test(n));
    const error = await readAll(bytes).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TorchFileError);
    expect((error as Error).message).toContain(`ZIP entry ${name}`);
    expect((error as Error).message).toContain("is damaged");
  });

  it("a flipped byte in data.pkl is an error when opening", async () => {
    const [bytes] = await flipped((n) => n.endsWith("/data.pkl"));
    await expect(openTorchFile(fileOf(bytes))).rejects.toThrow(/data\.pkl .* is damaged/);
  });

  it("an entry recorded with CRC 0 (torch's compute_crc32 off) is read unchecked", async () => {
    const data = pickle(op.proto, op.int(7), op.stop);
    const bytes = storedZip([
      { name: "archive/data.pkl", data, crc: 0 },
      { name: "archive/version", data: new TextEncoder().encode("3\n"), crc: 0 },
    ]);
    expect(await readAll(bytes)).toBe(7);
  });
});

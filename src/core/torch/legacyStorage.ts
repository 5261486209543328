import { isRecord } from "../isRecord";
import { unpickleAt } from "./pickle";
import { StorageRefBox } from "./pickleGlobals";
import { ELEMENT_BYTES } from "./torchValues";
import { TorchFileError } from "./zipEntries";

/*
 * A storage pickled by plain `pickle` (docs/format.md "SkyRL `dumped_data/*.pkl`"): torch's
 * `TypedStorage.__reduce__` is `torch.storage._load_from_bytes(b)`, `b` a LEGACY torch.save of
 * the storage alone (torch/serialization.py `_legacy_save`): five pickles in a row (the magic
 * number 0x1950a86a20f9469cfc6c, protocol 1001, sys info, the storage as a persistent id
 * `('storage', torch.LongStorage, key, location, numel, view_metadata)`, the list of storage
 * keys), then per key its element count (int64, little-endian) and its raw bytes.
 */

const LEGACY_MAGIC = "119547037146038801333356"; // 0x1950a86a20f9469cfc6c
const LEGACY_PROTOCOL = 1001;

function fail(message: string): never {
  throw new TorchFileError(`a pickled torch storage (_load_from_bytes): ${message}`);
}

/** The next pickle of the blob, with the part it is named in any error. */
function next(blob: Uint8Array, at: number, what: string): { value: unknown; end: number } {
  try {
    return unpickleAt(blob, at);
  } catch (error) {
    return fail(`its ${what}: ${(error as Error).message}`);
  }
}

/** True while a blob's pickles are being read: a blob inside one is refused, not recursed into. */
let isReading = false;

/** The storage a legacy torch.save blob holds, its bytes inline (`StorageRef.data`). */
export function loadLegacyStorage(blob: unknown): StorageRefBox {
  if (!(blob instanceof Uint8Array)) fail("its argument is not bytes");
  if (isReading) fail("a storage pickled inside a storage's own blob");
  isReading = true;
  try {
    return readBlob(blob);
  } finally {
    isReading = false;
  }
}

function readBlob(blob: Uint8Array): StorageRefBox {
  const magic = next(blob, 0, "magic number");
  if (String(magic.value) !== LEGACY_MAGIC) fail("no legacy torch.save magic number at byte 0");
  const protocol = next(blob, magic.end, "protocol version");
  if (protocol.value !== LEGACY_PROTOCOL) {
    fail(`protocol version ${String(protocol.value)}, not ${LEGACY_PROTOCOL}`);
  }
  const info = next(blob, protocol.end, "sys info");
  if (!isRecord(info.value) || info.value.little_endian !== true) {
    fail("its sys info is not little-endian (big-endian storages are not read)");
  }
  const main = next(blob, info.end, "storage record");
  if (!(main.value instanceof StorageRefBox)) fail("its record is not one storage");
  const keys = next(blob, main.end, "storage key list");
  if (!Array.isArray(keys.value) || !keys.value.every((k) => typeof k === "string")) {
    fail("its storage key list is not a list of strings");
  }
  const { ref } = main.value;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  let at = keys.end;
  for (const key of keys.value as string[]) {
    if (at + 8 > blob.length) fail(`storage ${key}'s element count at byte ${at} is cut off`);
    const numel = Number(view.getBigInt64(at, true));
    const size = numel * ELEMENT_BYTES[ref.type];
    if (numel < 0 || at + 8 + size > blob.length) {
      fail(
        `storage ${key} declares ${numel} ${ref.type} values at byte ${at}, ${blob.length - at - 8} bytes remain`,
      );
    }
    if (key === ref.key) {
      if (numel < ref.numel)
        fail(`storage ${key} holds ${numel} values, its record says ${ref.numel}`);
      return new StorageRefBox({ ...ref, data: blob.subarray(at + 8, at + 8 + size) });
    }
    at += 8 + size;
  }
  return fail(`its storage ${ref.key} is not among the keys it lists`);
}

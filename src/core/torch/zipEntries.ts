import { crc32 } from "./crc32";
import { textOf } from "./textOf";

/*
 * The central directory of a ZIP archive read by byte range, for PyTorch's `torch.save` files
 * (docs/format.md "slime and miles `.pt` dumps"). torch writes every entry stored (method 0,
 * no compression), so an entry's bytes are a plain byte range of the file; a compressed or
 * encrypted entry, or a size that points outside the file, is an error, never a guess.
 */

/** A file read by byte range: hyparquet's AsyncBuffer, which the Parquet reader uses too. */
export interface ByteRangeFile {
  readonly byteLength: number;
  slice(start: number, end?: number): Promise<ArrayBuffer> | ArrayBuffer;
}

/** One stored entry: where its local header starts and how many bytes it holds. */
export interface ZipEntry {
  readonly name: string;
  readonly localOffset: number;
  readonly size: number;
  /** The CRC-32 the directory records for its bytes; 0 when the writer recorded none. */
  readonly crc32: number;
}

export class TorchFileError extends Error {
  override readonly name = "TorchFileError";
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
/** The end record's comment is at most 65535 bytes, so the record sits in the last 64 KiB + 22. */
const EOCD_SEARCH = 65535 + EOCD_SIZE;
/** More entries than any torch.save file has (one per storage); a larger count is a lie. */
export const MAX_ZIP_ENTRIES = 1_000_000;
const MAX_NAME = 4096;

export async function readBytes(
  file: ByteRangeFile,
  start: number,
  end: number,
): Promise<Uint8Array> {
  if (start < 0 || end > file.byteLength || end < start) {
    throw new TorchFileError(
      `bytes ${start}-${end} lie outside the ${file.byteLength}-byte file (a truncated or damaged ZIP)`,
    );
  }
  const bytes = new Uint8Array(await file.slice(start, end));
  if (bytes.length !== end - start) {
    throw new TorchFileError(`read ${bytes.length} of bytes ${start}-${end}: the file is shorter`);
  }
  return bytes;
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The offset of the end-of-central-directory record inside `tail`, or -1. */
function findEocd(tail: Uint8Array): number {
  const v = view(tail);
  for (let k = tail.length - EOCD_SIZE; k >= 0; k--) {
    if (v.getUint32(k, true) === EOCD_SIGNATURE) return k;
  }
  return -1;
}

interface Directory {
  readonly count: number;
  readonly offset: number;
  readonly size: number;
}

async function zip64Directory(file: ByteRangeFile, eocdAt: number): Promise<Directory> {
  if (eocdAt < 20) throw new TorchFileError("a ZIP64 archive without its locator record");
  const locator = view(await readBytes(file, eocdAt - 20, eocdAt));
  if (locator.getUint32(0, true) !== ZIP64_LOCATOR_SIGNATURE) {
    throw new TorchFileError("a ZIP64 archive without its locator record");
  }
  const at = Number(locator.getBigUint64(8, true));
  const record = view(await readBytes(file, at, at + 56));
  if (record.getUint32(0, true) !== ZIP64_EOCD_SIGNATURE) {
    throw new TorchFileError(`no ZIP64 end record at byte ${at}`);
  }
  return {
    count: Number(record.getBigUint64(32, true)),
    size: Number(record.getBigUint64(40, true)),
    offset: Number(record.getBigUint64(48, true)),
  };
}

async function directoryOf(file: ByteRangeFile): Promise<Directory> {
  const size = file.byteLength;
  if (size < EOCD_SIZE) throw new TorchFileError(`a ${size}-byte file is too short to be a ZIP`);
  const tailStart = Math.max(0, size - EOCD_SEARCH);
  const tail = await readBytes(file, tailStart, size);
  const at = findEocd(tail);
  if (at < 0) {
    throw new TorchFileError("no ZIP end-of-central-directory record: the file is truncated");
  }
  const v = view(tail);
  const count = v.getUint16(at + 10, true);
  const dirSize = v.getUint32(at + 12, true);
  const dirOffset = v.getUint32(at + 16, true);
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
    return zip64Directory(file, tailStart + at);
  }
  return { count, size: dirSize, offset: dirOffset };
}

/** The 64-bit sizes and offset of a ZIP64 "extra field" (id 1) for the fields that are 0xFFFFFFFF. */
function zip64Extra(
  v: DataView,
  start: number,
  end: number,
  wants: { size: boolean; compressed: boolean; offset: boolean },
): { size?: number; compressed?: number; offset?: number } {
  let k = start;
  while (k + 4 <= end) {
    const id = v.getUint16(k, true);
    const length = v.getUint16(k + 2, true);
    if (id === 1) {
      let at = k + 4;
      const next = (): number | undefined => {
        if (at + 8 > k + 4 + length) return undefined;
        const value = Number(v.getBigUint64(at, true));
        at += 8;
        return value;
      };
      const size = wants.size ? next() : undefined;
      const compressed = wants.compressed ? next() : undefined;
      const offset = wants.offset ? next() : undefined;
      return { size, compressed, offset };
    }
    k += 4 + length;
  }
  return {};
}

/** Every entry of the archive, by name, from its central directory (one read). */
export async function readZipEntries(file: ByteRangeFile): Promise<Map<string, ZipEntry>> {
  const dir = await directoryOf(file);
  if (dir.count > MAX_ZIP_ENTRIES || dir.count * 46 > dir.size) {
    throw new TorchFileError(
      `the ZIP directory declares ${dir.count} entries in ${dir.size} bytes`,
    );
  }
  const bytes = await readBytes(file, dir.offset, dir.offset + dir.size);
  const v = view(bytes);
  const entries = new Map<string, ZipEntry>();
  let k = 0;
  for (let n = 0; n < dir.count; n++) {
    if (k + 46 > bytes.length || v.getUint32(k, true) !== CENTRAL_SIGNATURE) {
      throw new TorchFileError(`ZIP directory entry ${n} is damaged (byte ${dir.offset + k})`);
    }
    const flags = v.getUint16(k + 8, true);
    const method = v.getUint16(k + 10, true);
    const crc = v.getUint32(k + 16, true);
    let compressed = v.getUint32(k + 20, true);
    let size = v.getUint32(k + 24, true);
    const nameLength = v.getUint16(k + 28, true);
    const extraLength = v.getUint16(k + 30, true);
    const commentLength = v.getUint16(k + 32, true);
    let localOffset = v.getUint32(k + 42, true);
    const end = k + 46 + nameLength + extraLength + commentLength;
    if (nameLength > MAX_NAME || end > bytes.length) {
      throw new TorchFileError(`ZIP directory entry ${n} runs past the directory`);
    }
    const name = textOf(bytes.subarray(k + 46, k + 46 + nameLength));
    const wide = zip64Extra(v, k + 46 + nameLength, k + 46 + nameLength + extraLength, {
      size: size === 0xffffffff,
      compressed: compressed === 0xffffffff,
      offset: localOffset === 0xffffffff,
    });
    size = wide.size ?? size;
    compressed = wide.compressed ?? compressed;
    localOffset = wide.offset ?? localOffset;
    if (method !== 0 || (flags & 1) !== 0) {
      throw new TorchFileError(
        `ZIP entry ${name} is ${method !== 0 ? `compressed (method ${method})` : "encrypted"}: torch.save writes every entry stored; re-save it with torch.save`,
      );
    }
    if (compressed !== size || localOffset + 30 + size > file.byteLength) {
      throw new TorchFileError(
        `ZIP entry ${name} declares ${size} bytes at byte ${localOffset}, past the end of the ${file.byteLength}-byte file`,
      );
    }
    entries.set(name, { name, localOffset, size, crc32: crc });
    k = end;
  }
  return entries;
}

/** Where an entry's bytes start: after its local header, whose extra field torch uses as padding. */
export async function entryDataOffset(file: ByteRangeFile, entry: ZipEntry): Promise<number> {
  const header = view(await readBytes(file, entry.localOffset, entry.localOffset + 30));
  if (header.getUint32(0, true) !== LOCAL_SIGNATURE) {
    throw new TorchFileError(
      `ZIP entry ${entry.name}: no local header at byte ${entry.localOffset}`,
    );
  }
  const start = entry.localOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (start + entry.size > file.byteLength) {
    throw new TorchFileError(
      `ZIP entry ${entry.name}: ${entry.size} bytes at byte ${start} run past the end of the file (truncated)`,
    );
  }
  return start;
}

/**
 * `data`, the bytes of `entry`, once their CRC-32 matches the one the directory records: a
 * mismatch is a damaged file (a flipped or overwritten byte), an error naming the entry and
 * where its bytes start. A CRC of 0 is not checked: torch.save writes 0 when its
 * `compute_crc32` setting is off (torch 2.6+).
 */
export function checkedEntryData(entry: ZipEntry, data: Uint8Array, start: number): Uint8Array {
  if (entry.crc32 === 0) return data;
  const actual = crc32(data);
  if (actual !== entry.crc32) {
    const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;
    throw new TorchFileError(
      `ZIP entry ${entry.name} (${entry.size} bytes at byte ${start}) is damaged: its CRC-32 is ${hex(actual)}, the archive recorded ${hex(entry.crc32)} (a flipped or overwritten byte; copy the file again)`,
    );
  }
  return data;
}

/** An entry's bytes (one read after its local header), checked against their CRC-32. */
export async function readEntry(file: ByteRangeFile, entry: ZipEntry): Promise<Uint8Array> {
  const start = await entryDataOffset(file, entry);
  return checkedEntryData(entry, await readBytes(file, start, start + entry.size), start);
}

/*
 * Hand-made torch.save files for tests: a stored ZIP (as torch writes it) around a pickle built
 * opcode by opcode, so hostile files (a global that runs code, lying lengths, deep nesting,
 * storages shorter than their tensors) can be written without Python.
 */

import { crc32 } from "node:zlib";

const encoder = new TextEncoder();

function u16(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff];
}
function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

export interface ZipPart {
  readonly name: string;
  readonly data: Uint8Array;
  /** The size the directory declares (default: the data's). */
  readonly declaredSize?: number;
  /** Compression method written (default 0, stored). */
  readonly method?: number;
  /** The CRC-32 recorded (default: the data's, as torch.save writes it; 0 records none). */
  readonly crc?: number;
}

/** A ZIP of stored entries, each local header followed by its bytes, then the directory. */
export function storedZip(parts: readonly ZipPart[]): Uint8Array {
  const chunks: number[][] = [];
  const central: number[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = [...encoder.encode(part.name)];
    const size = part.declaredSize ?? part.data.length;
    const method = part.method ?? 0;
    const crc = part.crc ?? crc32(part.data);
    const local = [...u32(0x04034b50), ...u16(20), ...u16(0), ...u16(method), ...u16(0), ...u16(0)];
    local.push(...u32(crc), ...u32(size), ...u32(size), ...u16(name.length), ...u16(0), ...name);
    chunks.push(local, [...part.data]);
    central.push(...u32(0x02014b50), ...u16(20), ...u16(20), ...u16(0), ...u16(method));
    central.push(...u16(0), ...u16(0), ...u32(crc), ...u32(size), ...u32(size));
    central.push(...u16(name.length), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0));
    central.push(...u32(offset), ...name);
    offset += local.length + part.data.length;
  }
  const end = [
    ...u32(0x06054b50),
    ...u16(0),
    ...u16(0),
    ...u16(parts.length),
    ...u16(parts.length),
  ];
  end.push(...u32(central.length), ...u32(offset), ...u16(0));
  const out = new Uint8Array(offset + central.length + end.length);
  let at = 0;
  for (const chunk of [...chunks, central, end]) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Pickle opcodes as bytes, for building hostile pickles by hand. */
export const op = {
  proto: [0x80, 2],
  stop: [0x2e],
  mark: [0x28],
  none: [0x4e],
  emptyList: [0x5d],
  emptyDict: [0x7d],
  emptyTuple: [0x29],
  append: [0x61],
  setitems: [0x75],
  tuple: [0x74],
  tuple1: [0x85],
  reduce: [0x52],
  newobj: [0x81],
  binpersid: [0x51],
  int: (n: number) => [0x4a, ...u32(n)],
  binput: (n: number) => [0x71, n],
  binget: (n: number) => [0x68, n],
  str: (s: string) => {
    const b = [...encoder.encode(s)];
    return [0x58, ...u32(b.length), ...b];
  },
  /** BINUNICODE declaring `n` bytes whatever follows. */
  strDeclaring: (n: number) => [0x58, ...u32(n)],
  global: (module: string, name: string) => [0x63, ...encoder.encode(`${module}\n${name}\n`)],
};

export function pickle(...parts: readonly (readonly number[])[]): Uint8Array {
  return new Uint8Array(parts.flat());
}

/** A torch.save-shaped ZIP: `archive/data.pkl` and `archive/data/KEY` storages. */
export function torchZip(
  data: Uint8Array,
  storages: Readonly<Record<string, Uint8Array>> = {},
): Uint8Array {
  return storedZip([
    { name: "archive/data.pkl", data },
    ...Object.entries(storages).map(([key, bytes]) => ({
      name: `archive/data/${key}`,
      data: bytes,
    })),
    { name: "archive/version", data: encoder.encode("3\n") },
  ]);
}

/** The pickle of `torch._utils._rebuild_tensor_v2` over storage `key` (int64, `numel` declared). */
export function tensorPickle(
  key: string,
  numel: number,
  shape: number[],
  stride: number[],
): number[][] {
  return [
    op.global("torch._utils", "_rebuild_tensor_v2"),
    op.mark,
    op.mark,
    op.str("storage"),
    op.global("torch", "LongStorage"),
    op.str(key),
    op.str("cpu"),
    op.int(numel),
    op.tuple,
    op.binpersid,
    op.int(0),
    op.mark,
    ...shape.map((n) => op.int(n)),
    op.tuple,
    op.mark,
    ...stride.map((n) => op.int(n)),
    op.tuple,
    [0x89],
    op.global("collections", "OrderedDict"),
    op.emptyTuple,
    op.reduce,
    op.tuple,
    op.reduce,
  ];
}

/** int64 little-endian bytes of `values`. */
export function int64Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  values.forEach((v, k) => {
    view.setBigInt64(k * 8, BigInt(v), true);
  });
  return out;
}

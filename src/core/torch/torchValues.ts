import { TorchFileError } from "./zipEntries";

/*
 * The values the restricted unpickler builds besides plain data (docs/format.md "slime and miles
 * `.pt` dumps"): a tensor as a reference to its storage (read later, by byte range), a numpy
 * array with its bytes, and the element types of both.
 */

export type ElementType =
  | "int64"
  | "int32"
  | "int16"
  | "int8"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "bool"
  | "float16"
  | "bfloat16"
  | "float32"
  | "float64";

export const ELEMENT_BYTES: Readonly<Record<ElementType, number>> = {
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint8: 1,
  uint16: 2,
  uint32: 4,
  uint64: 8,
  bool: 1,
  float16: 2,
  bfloat16: 2,
  float32: 4,
  float64: 8,
};

/** torch's storage classes (`torch.LongStorage`, ...) and the element each holds. */
export const TORCH_STORAGE_TYPES: Readonly<Record<string, ElementType>> = {
  LongStorage: "int64",
  IntStorage: "int32",
  ShortStorage: "int16",
  CharStorage: "int8",
  ByteStorage: "uint8",
  BoolStorage: "bool",
  HalfStorage: "float16",
  BFloat16Storage: "bfloat16",
  FloatStorage: "float32",
  DoubleStorage: "float64",
  UntypedStorage: "uint8",
};

/** One `data/KEY` entry of the archive, as a tensor's persistent id names it. */
export interface StorageRef {
  readonly key: string;
  readonly type: ElementType;
  /** Elements the pickle says the storage holds. */
  readonly numel: number;
  /** The storage's bytes when the pickle holds them (a legacy blob, legacyStorage.ts), not a ZIP entry. */
  readonly data?: Uint8Array;
}

/** A tensor as `torch._utils._rebuild_tensor_v2` describes it: a strided view of a storage. */
export class TensorRef {
  constructor(
    readonly storage: StorageRef,
    readonly offset: number,
    readonly shape: readonly number[],
    readonly stride: readonly number[],
  ) {}

  get numel(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** The storage elements the view reaches: one past its largest index (0 when empty). */
  get extent(): number {
    if (this.numel === 0) return 0;
    let last = this.offset;
    for (const [k, n] of this.shape.entries()) last += (n - 1) * (this.stride[k] ?? 0);
    return last + 1;
  }
}

/** A numpy array (`numpy.core.multiarray._reconstruct` + its state): bytes in C or Fortran order. */
export class NumpyArrayRef {
  // Mutable: BUILD fills in the array that `_reconstruct` made (the memo may hold it already).
  constructor(
    public type: ElementType,
    public littleEndian: boolean,
    public shape: readonly number[],
    public isFortran: boolean,
    public data: Uint8Array,
  ) {}
}

const NUMPY_KINDS: Readonly<Record<string, ElementType>> = {
  i1: "int8",
  i2: "int16",
  i4: "int32",
  i8: "int64",
  u1: "uint8",
  u2: "uint16",
  u4: "uint32",
  u8: "uint64",
  b1: "bool",
  f2: "float16",
  f4: "float32",
  f8: "float64",
};

/** The element type of a numpy dtype string (`'<i4'`, `'f8'`, `'?'`), or an error naming it. */
export function numpyElementType(code: string): { type: ElementType; littleEndian: boolean } {
  const order = code[0];
  const bare =
    order === "<" || order === ">" || order === "|" || order === "=" ? code.slice(1) : code;
  const type = bare === "?" ? "bool" : NUMPY_KINDS[bare];
  if (!type)
    throw new TorchFileError(`numpy dtype '${code}' is not a number type this reader reads`);
  return { type, littleEndian: order !== ">" };
}

/** IEEE half precision bits as a number. */
function half(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** A reader of element k of `bytes` (k counted in elements). */
export function elementReader(
  bytes: Uint8Array,
  type: ElementType,
  littleEndian = true,
): (k: number) => number | boolean {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = littleEndian;
  switch (type) {
    case "int64":
    case "uint64":
      return (k) => {
        const lo = v.getUint32(k * 8 + (le ? 0 : 4), le);
        const hi =
          type === "int64"
            ? v.getInt32(k * 8 + (le ? 4 : 0), le)
            : v.getUint32(k * 8 + (le ? 4 : 0), le);
        return hi * 4294967296 + lo;
      };
    case "int32":
      return (k) => v.getInt32(k * 4, le);
    case "uint32":
      return (k) => v.getUint32(k * 4, le);
    case "int16":
      return (k) => v.getInt16(k * 2, le);
    case "uint16":
      return (k) => v.getUint16(k * 2, le);
    case "int8":
      return (k) => v.getInt8(k);
    case "uint8":
      return (k) => v.getUint8(k);
    case "bool":
      return (k) => v.getUint8(k) !== 0;
    case "float16":
      return (k) => half(v.getUint16(k * 2, le));
    case "bfloat16":
      return (k) => {
        u32[0] = v.getUint16(k * 2, le) << 16;
        return f32[0] as number;
      };
    case "float32":
      return (k) => v.getFloat32(k * 4, le);
    case "float64":
      return (k) => v.getFloat64(k * 8, le);
  }
}

/** Flat values nested along `shape` (C order): [] dims give a scalar, one dim the flat list. */
export function nest(flat: readonly unknown[], shape: readonly number[]): unknown {
  if (shape.length === 0) return flat[0];
  if (shape.length === 1) return flat;
  const inner = shape.slice(1);
  const step = inner.reduce((a, b) => a * b, 1);
  const out: unknown[] = [];
  for (let k = 0; k < (shape[0] ?? 0); k++)
    out.push(nest(flat.slice(k * step, (k + 1) * step), inner));
  return out;
}

/** The elements of a strided view in C order: `index(k)` reads storage element k. */
export function stridedValues<T>(
  shape: readonly number[],
  stride: readonly number[],
  offset: number,
  index: (k: number) => T,
): T[] {
  const numel = shape.reduce((a, b) => a * b, 1);
  const out: T[] = [];
  if (numel === 0) return out;
  const contiguous = shape.every((_, d) => {
    const expected = shape.slice(d + 1).reduce((a, b) => a * b, 1);
    return (shape[d] ?? 0) <= 1 || stride[d] === expected;
  });
  if (contiguous) {
    for (let k = 0; k < numel; k++) out.push(index(offset + k));
    return out;
  }
  const at = shape.map(() => 0);
  for (let n = 0; n < numel; n++) {
    let position = offset;
    for (let d = 0; d < shape.length; d++) position += (at[d] ?? 0) * (stride[d] ?? 0);
    out.push(index(position));
    for (let d = shape.length - 1; d >= 0; d--) {
      at[d] = (at[d] ?? 0) + 1;
      if ((at[d] ?? 0) < (shape[d] ?? 0)) break;
      at[d] = 0;
    }
  }
  return out;
}

/** A numpy array's values, nested along its shape (a 0-d array is its one value). */
export function numpyValues(array: NumpyArrayRef): unknown {
  const { shape, type } = array;
  const numel = shape.reduce((a, b) => a * b, 1);
  if (array.data.length < numel * ELEMENT_BYTES[type]) {
    throw new TorchFileError(
      `a numpy array of shape [${shape.join(", ")}] holds ${array.data.length} bytes, fewer than its ${numel} ${type} values`,
    );
  }
  const read = elementReader(array.data, type, array.littleEndian);
  // Fortran order is C order over the reversed shape, then transposed by its strides.
  const strides = shape.map((_, d) =>
    array.isFortran
      ? shape.slice(0, d).reduce((a, b) => a * b, 1)
      : shape.slice(d + 1).reduce((a, b) => a * b, 1),
  );
  return nest(stridedValues(shape, strides, 0, read), shape);
}

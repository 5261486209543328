import { isZipHead } from "../files/sniffFile";
import { unpickle } from "./pickle";
import {
  ELEMENT_BYTES,
  elementReader,
  NumpyArrayRef,
  nest,
  numpyValues,
  stridedValues,
  TensorRef,
} from "./torchValues";
import {
  type ByteRangeFile,
  checkedEntryData,
  readBytes,
  readEntry,
  readZipEntries,
  TorchFileError,
  type ZipEntry,
} from "./zipEntries";

/*
 * A `torch.save` file opened by byte range (docs/format.md "slime and miles `.pt` dumps"): the
 * ZIP directory, then `<archive>/data.pkl` read whole and unpickled by the restricted machine,
 * with tensors left as references. `plainValues` turns a part of the value into plain data,
 * reading only the storages that part's tensors use, each once, in as few reads as their
 * layout in the file allows.
 */

/** Largest `data.pkl` read (the pickle is read whole; storages are not). */
export const MAX_PICKLE_BYTES = 1 << 30;
/** Deepest nesting of lists and dicts walked (deeper, or a cycle, is an error). */
export const MAX_DEPTH = 256;
/** Storages whose entries lie within this many bytes of each other are read in one range. */
const GROUP_SPAN = 32 << 20;
/** ...when the bytes between two of them are fewer than this (one read costs more than that). */
const MERGE_GAP = 64 << 10;

export interface TorchFile {
  readonly file: ByteRangeFile;
  /** The pickled value, tensors as TensorRef and numpy arrays as NumpyArrayRef. */
  readonly root: unknown;
  /** `<archive>/data/<key>` entries by key. */
  readonly storages: ReadonlyMap<string, ZipEntry>;
}

/** Opens a torch.save ZIP: reads its directory and unpickles `data.pkl`; storages stay unread. */
export async function openTorchFile(file: ByteRangeFile): Promise<TorchFile> {
  const head = await readBytes(file, 0, Math.min(4, file.byteLength));
  if (!isZipHead(head)) {
    throw new TorchFileError(
      head[0] === 0x80
        ? "a legacy (non-ZIP) torch.save file or a bare pickle: re-save it with torch.save's default ZIP format"
        : "not a ZIP archive, so not a torch.save file",
    );
  }
  const entries = await readZipEntries(file);
  const pickles = [...entries.keys()].filter((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (pickles.length !== 1) {
    throw new TorchFileError(
      pickles.length === 0
        ? "a ZIP file without <archive>/data.pkl: not a torch.save file"
        : `a ZIP file with ${pickles.length} data.pkl entries`,
    );
  }
  const pickleEntry = entries.get(pickles[0] as string) as ZipEntry;
  if (pickleEntry.size > MAX_PICKLE_BYTES) {
    throw new TorchFileError(
      `data.pkl declares ${pickleEntry.size} bytes, more than the ${MAX_PICKLE_BYTES} read`,
    );
  }
  const prefix = `${(pickles[0] as string).slice(0, -"data.pkl".length)}data/`;
  const storages = new Map<string, ZipEntry>();
  for (const [name, entry] of entries) {
    if (name.startsWith(prefix)) storages.set(name.slice(prefix.length), entry);
  }
  const root = unpickle(await readEntry(file, pickleEntry));
  return { file, root, storages };
}

/** The tensors inside `value` (bounded depth; a cycle counts as too deep). */
export function tensorsIn(value: unknown, out: TensorRef[] = [], depth = 0): TensorRef[] {
  if (depth > MAX_DEPTH) throw tooDeep();
  if (value instanceof TensorRef) out.push(value);
  else if (Array.isArray(value)) {
    // Lists of numbers (token ids) are the common case: no call per entry.
    for (const v of value) if (typeof v === "object" && v !== null) tensorsIn(v, out, depth + 1);
  } else if (isPlainObject(value)) {
    for (const v of Object.values(value)) tensorsIn(v, out, depth + 1);
  }
  return out;
}

function tooDeep(): TorchFileError {
  return new TorchFileError(`values nested deeper than ${MAX_DEPTH} levels (or a cycle)`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof TensorRef) &&
    !(v instanceof NumpyArrayRef)
  );
}

/** The bytes of storages `keys`, read in grouped ranges. */
export async function readStorages(
  torch: TorchFile,
  keys: Iterable<string>,
): Promise<Map<string, Uint8Array>> {
  const wanted = [...new Set(keys)].map((key) => {
    const entry = torch.storages.get(key);
    if (!entry) throw new TorchFileError(`a tensor names storage data/${key}, which the ZIP lacks`);
    return { key, entry };
  });
  wanted.sort((a, b) => a.entry.localOffset - b.entry.localOffset);
  const out = new Map<string, Uint8Array>();
  // The local header, its name and torch's padding (< 64 bytes + 4) come before the data.
  const endOf = (e: ZipEntry) =>
    Math.min(torch.file.byteLength, e.localOffset + 30 + e.name.length * 3 + 128 + e.size);
  let k = 0;
  while (k < wanted.length) {
    const first = wanted[k] as (typeof wanted)[number];
    let end = endOf(first.entry);
    let j = k + 1;
    // Storages close together (torch writes them sorted by key) are read as one range.
    for (; j < wanted.length; j++) {
      const next = (wanted[j] as (typeof wanted)[number]).entry;
      if (next.localOffset - end > MERGE_GAP || endOf(next) - first.entry.localOffset > GROUP_SPAN)
        break;
      end = Math.max(end, endOf(next));
    }
    const span = await readBytes(torch.file, first.entry.localOffset, end);
    for (const { key, entry } of wanted.slice(k, j)) {
      out.set(key, await dataInSpan(torch.file, entry, span, first.entry.localOffset));
    }
    k = j;
  }
  return out;
}

/** An entry's data from a span read from `spanStart`, or read alone when it runs past the span. */
async function dataInSpan(
  file: ByteRangeFile,
  entry: ZipEntry,
  span: Uint8Array,
  spanStart: number,
): Promise<Uint8Array> {
  const at = entry.localOffset - spanStart;
  const v = new DataView(span.buffer, span.byteOffset, span.byteLength);
  if (at + 30 <= span.length && v.getUint32(at, true) === 0x04034b50) {
    const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
    if (start + entry.size <= span.length) {
      return checkedEntryData(entry, span.subarray(start, start + entry.size), spanStart + start);
    }
  }
  return readEntry(file, entry);
}

/** A tensor's values (nested along its shape; a 0-d tensor is its one value). */
export function tensorValues(tensor: TensorRef, bytes: Uint8Array): unknown {
  const { storage } = tensor;
  const size = ELEMENT_BYTES[storage.type];
  const held = Math.floor(bytes.length / size);
  if (tensor.extent > Math.min(held, storage.numel)) {
    throw new TorchFileError(
      `a tensor of shape [${tensor.shape.join(", ")}] reaches element ${tensor.extent} of storage data/${storage.key}, which holds ${Math.min(held, storage.numel)}`,
    );
  }
  const flat = stridedValues(
    tensor.shape,
    tensor.stride,
    tensor.offset,
    elementReader(bytes, storage.type),
  );
  return nest(flat, tensor.shape);
}

/** `value` as plain data: tensors and numpy arrays become (nested) number lists, bytes number lists. */
export function plainOf(
  value: unknown,
  storages: ReadonlyMap<string, Uint8Array>,
  depth = 0,
): unknown {
  if (depth > MAX_DEPTH) throw tooDeep();
  if (value instanceof TensorRef) {
    const bytes = value.storage.data ?? storages.get(value.storage.key);
    if (!bytes) throw new TorchFileError(`storage data/${value.storage.key} was not read`);
    return tensorValues(value, bytes);
  }
  if (value instanceof NumpyArrayRef) return numpyValues(value);
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) {
    if (
      value.length > 0 &&
      typeof value[0] === "number" &&
      value.every((v) => typeof v === "number")
    ) {
      return value;
    }
    return value.map((v) => plainOf(v, storages, depth + 1));
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: plainOf(v, storages, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** `value` as plain data, reading the storages its tensors use. */
export async function plainValues(torch: TorchFile, value: unknown): Promise<unknown> {
  const tensors = tensorsIn(value);
  const inZip = tensors.filter((t) => t.storage.data === undefined);
  const storages = await readStorages(
    torch,
    inZip.map((t) => t.storage.key),
  );
  return plainOf(value, storages);
}

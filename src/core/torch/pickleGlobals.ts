import { isRecord } from "../isRecord";
import { loadLegacyStorage } from "./legacyStorage";
import {
  NumpyArrayRef,
  numpyElementType,
  numpyValues,
  type StorageRef,
  TensorRef,
  TORCH_STORAGE_TYPES,
} from "./torchValues";
import { TorchFileError } from "./zipEntries";

/*
 * The globals a pickle may name, and what each builds (docs/format.md "slime and miles `.pt`
 * dumps"). Nothing named in a pickle is ever imported or run: each allowed name maps to a small
 * function here that builds a plain value. Any other name is an error naming it, except a class
 * (a CamelCase name outside the modules below) reached through NEWOBJ or called with plain
 * arguments: that becomes a placeholder object `{__class__: "module.Name", ...its state}`, so
 * a dataclass such as miles' `RewardSpec` does not stop a dump from opening.
 */

/** A global named by GLOBAL / STACK_GLOBAL, before anything uses it. */
export class GlobalRef {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  get qualified(): string {
    return `${this.module}.${this.name}`;
  }
}

/** A numpy dtype under construction (`numpy.dtype('i4', False, True)` then its BUILD state). */
export class NumpyDtype {
  constructor(
    public code: string,
    public order = "|",
  ) {}
}

/** A placeholder for an object of a class this reader does not know: its name and state. */
export type Placeholder = Record<string, unknown> & { readonly __class__: string };

/** Modules whose names are never data classes: naming them is always an error. */
const NEVER_PLACEHOLDER = new Set([
  "os",
  "posix",
  "nt",
  "sys",
  "subprocess",
  "builtins",
  "__builtin__",
  "shutil",
  "socket",
  "importlib",
  "pickle",
  "_pickle",
  "runpy",
  "code",
  "codeop",
  "ctypes",
  "types",
  "functools",
  "operator",
  "io",
  "pty",
  "webbrowser",
  "multiprocessing",
  "threading",
  "signal",
  "marshal",
  "pathlib",
  "tempfile",
  "shelve",
  "asyncio",
  "torch",
  "numpy",
]);

/** True when `ref` may stand as a placeholder class: CamelCase, outside the modules above. */
export function isPlaceholderClass(ref: GlobalRef): boolean {
  const top = ref.module.split(".")[0] ?? "";
  const last = ref.name.split(".").pop() ?? "";
  return !NEVER_PLACEHOLDER.has(top) && /^[A-Z]/.test(last);
}

export function unlistedGlobal(ref: GlobalRef, use: string): TorchFileError {
  return new TorchFileError(
    `the pickle ${use} ${ref.qualified}, a global this reader never imports or runs (it reads tensors, numpy arrays and plain values only)`,
  );
}

const isRef = (v: unknown, module: string, name: string): boolean =>
  v instanceof GlobalRef &&
  v.name === name &&
  (v.module === module || v.module === module.replace("_core", "core"));

function ints(value: unknown, what: string): number[] {
  if (!Array.isArray(value) || !value.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new TorchFileError(`a tensor's ${what} is not a list of non-negative integers`);
  }
  return value as number[];
}

function rebuildTensor(args: readonly unknown[]): TensorRef {
  const [storage, offset, size, stride] = args;
  if (!(storage instanceof StorageRefBox)) {
    throw new TorchFileError("a tensor rebuilt from something that is not a storage");
  }
  if (!Number.isSafeInteger(offset) || (offset as number) < 0) {
    throw new TorchFileError("a tensor's storage offset is not a non-negative integer");
  }
  const shape = ints(size, "size");
  const strides = ints(stride, "stride");
  if (strides.length !== shape.length) {
    throw new TorchFileError(`a tensor of ${shape.length} dims with ${strides.length} strides`);
  }
  return new TensorRef(storage.ref, offset as number, shape, strides);
}

/** A storage named by a persistent id: boxed so a pickle can never forge one from plain data. */
export class StorageRefBox {
  constructor(readonly ref: StorageRef) {}
}

/** `('storage', torch.LongStorage, '0', 'cpu', numel)` -> the storage it names. */
export function persistentStorage(pid: unknown): StorageRefBox {
  if (!Array.isArray(pid) || pid[0] !== "storage" || pid.length < 5) {
    throw new TorchFileError("a persistent id that is not a torch storage");
  }
  const [, type, key, , numel] = pid;
  const element =
    type instanceof GlobalRef && (type.module === "torch" || type.module === "torch.storage")
      ? TORCH_STORAGE_TYPES[type.name]
      : undefined;
  if (!element) {
    throw new TorchFileError(
      `a storage of type ${type instanceof GlobalRef ? type.qualified : String(type)}, which this reader does not read`,
    );
  }
  if (typeof key !== "string" || !/^[A-Za-z0-9_]+$/.test(key) || !Number.isSafeInteger(numel)) {
    throw new TorchFileError(
      `a storage with key ${JSON.stringify(key)} and ${String(numel)} elements`,
    );
  }
  return new StorageRefBox({ key, type: element, numel: numel as number });
}

function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code > 255) throw new TorchFileError("_codecs.encode of a non-latin-1 string");
    out[k] = code;
  }
  return out;
}

/** The result of calling an allowed global `fn` with `args` (REDUCE), or an error naming it. */
export function callGlobal(fn: unknown, args: unknown): unknown {
  if (!(fn instanceof GlobalRef))
    throw new TorchFileError("the pickle calls a value that is not a global");
  const list = Array.isArray(args) ? args : [];
  if (
    isRef(fn, "torch._utils", "_rebuild_tensor_v2") ||
    isRef(fn, "torch._utils", "_rebuild_tensor")
  ) {
    return rebuildTensor(list);
  }
  if (isRef(fn, "collections", "OrderedDict")) return orderedDict(list[0]);
  if (isRef(fn, "torch.storage", "_load_from_bytes")) return loadLegacyStorage(list[0]);
  if (isSkyrlRebuild(fn) && list[0] instanceof GlobalRef && isSkyrlBatchClass(list[0])) {
    // SkyRL's TensorBatch.__reduce__: `_rebuild_tensor_batch(cls, state)`, the class with its state.
    return buildState(placeholder(list[0], []), list[1]);
  }
  if (isRef(fn, "torch", "device")) {
    if (typeof list[0] !== "string") throw new TorchFileError("torch.device of a non-string");
    return list.length > 1 ? `${list[0]}:${String(list[1])}` : list[0];
  }
  if (isRef(fn, "_codecs", "encode") || isRef(fn, "codecs", "encode")) {
    const [text, encoding] = list;
    if (typeof text !== "string" || !/^latin[-_]?1$/i.test(String(encoding ?? "latin1"))) {
      throw new TorchFileError("_codecs.encode other than of a string to latin-1");
    }
    return latin1Bytes(text);
  }
  if (isRef(fn, "builtins", "set") || isRef(fn, "builtins", "frozenset")) {
    return Array.isArray(list[0]) ? [...list[0]] : [];
  }
  if (isRef(fn, "builtins", "bytearray"))
    return list[0] instanceof Uint8Array ? list[0] : new Uint8Array(0);
  if (isRef(fn, "numpy._core.multiarray", "_reconstruct")) {
    return new NumpyArrayRef("uint8", true, [0], false, new Uint8Array(0));
  }
  if (isRef(fn, "numpy", "dtype")) {
    if (typeof list[0] !== "string") throw new TorchFileError("numpy.dtype of a non-string");
    return new NumpyDtype(list[0]);
  }
  if (isRef(fn, "numpy._core.multiarray", "scalar")) return numpyScalar(list[0], list[1]);
  if (isRef(fn, "copyreg", "_reconstructor") && list[0] instanceof GlobalRef) {
    return placeholder(list[0], []);
  }
  if (isPlaceholderClass(fn)) return placeholder(fn, list);
  throw unlistedGlobal(fn, "calls");
}

const SKYRL_BATCH_MODULES = new Set([
  "skyrl.backends.skyrl_train.training_batch",
  "skyrl_train.training_batch",
]);

/** A SkyRL batch class (`TrainingInputBatch`, `TensorBatch`, ...) of its training batch module. */
export function isSkyrlBatchClass(ref: GlobalRef): boolean {
  return SKYRL_BATCH_MODULES.has(ref.module) && /^[A-Z]\w*Batch$/.test(ref.name);
}

/** SkyRL's `_rebuild_tensor_batch` (skyrl/backends/skyrl_train/training_batch.py; skyrl_train.training_batch before the move). */
function isSkyrlRebuild(fn: GlobalRef): boolean {
  return fn.name === "_rebuild_tensor_batch" && SKYRL_BATCH_MODULES.has(fn.module);
}

function orderedDict(items: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(items)) {
    for (const pair of items) {
      if (Array.isArray(pair) && pair.length === 2) setKey(out, pair[0], pair[1]);
    }
  }
  return out;
}

function numpyScalar(dtype: unknown, bytes: unknown): unknown {
  if (!(dtype instanceof NumpyDtype) || !(bytes instanceof Uint8Array)) {
    throw new TorchFileError("numpy scalar without a dtype and its bytes");
  }
  const { type, littleEndian } = numpyElementType(dtype.order + dtype.code);
  return numpyValues(new NumpyArrayRef(type, littleEndian, [], false, bytes));
}

/** A placeholder object for an unknown class: its qualified name, and its arguments if any. */
export function placeholder(cls: GlobalRef, args: readonly unknown[]): Placeholder {
  const out: Placeholder = { __class__: cls.qualified };
  if (args.length > 0) out.__args__ = [...args];
  return out;
}

/** A dict key as an object key: strings as they are, numbers and other keys as their text. */
export function setKey(target: Record<string, unknown>, key: unknown, value: unknown): void {
  const name = typeof key === "string" ? key : (JSON.stringify(key) ?? String(key));
  if (name !== "__proto__") {
    // Any other name assigned makes an own data property (the prototype's other members are data).
    target[name] = value;
    return;
  }
  // defineProperty: a key "__proto__" is data, never the object's prototype.
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** BUILD: a numpy array or dtype takes its state; a placeholder or dict its attributes. */
export function buildState(target: unknown, state: unknown): unknown {
  if (target instanceof NumpyDtype) {
    if (Array.isArray(state) && typeof state[1] === "string") target.order = state[1];
    return target;
  }
  if (target instanceof NumpyArrayRef) return numpyArrayState(target, state);
  if (target instanceof TensorRef) return target;
  if (isRecord(target)) {
    // `(dict_state, slot_state)` or a dict: both become attributes.
    const parts = Array.isArray(state) ? state : [state];
    for (const part of parts) {
      if (!isRecord(part)) continue;
      for (const [k, v] of Object.entries(part)) setKey(target, k, v);
    }
    return target;
  }
  throw new TorchFileError("BUILD on a value that takes no state");
}

/** numpy's array state: (version, shape, dtype, is_fortran, raw bytes). */
function numpyArrayState(target: NumpyArrayRef, state: unknown): NumpyArrayRef {
  if (!Array.isArray(state) || state.length < 5)
    throw new TorchFileError("a numpy array without its state");
  const [, shape, dtype, fortran, raw] = state;
  if (!(dtype instanceof NumpyDtype)) throw new TorchFileError("a numpy array without a dtype");
  if (!(raw instanceof Uint8Array)) {
    throw new TorchFileError("a numpy array whose data is not bytes (object arrays are not read)");
  }
  const { type, littleEndian } = numpyElementType(dtype.order + dtype.code);
  target.type = type;
  target.littleEndian = littleEndian;
  target.shape = ints(shape, "numpy shape");
  target.isFortran = fortran === true;
  target.data = raw;
  return target;
}

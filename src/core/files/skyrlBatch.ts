import { isRecord } from "../isRecord";
import { unpickle } from "../torch/pickle";
import { MAX_PICKLE_BYTES, openTorchFile, plainOf, plainValues } from "../torch/torchFile";
import {
  ELEMENT_BYTES,
  NumpyArrayRef,
  numpyElementType,
  numpyValues,
  TensorRef,
} from "../torch/torchValues";
import { type ByteRangeFile, readBytes, TorchFileError } from "../torch/zipEntries";
import type { RecordSource } from "./recordIndexer";
import { REFERENCE_LANE, TRAINER_LANE } from "./trainDump";

/*
 * SkyRL's training batch dump (docs/format.md "SkyRL `dumped_data/*.pkl`"): `dump_data` in
 * skyrl/train/trainer.py pickles a `TrainingInputBatch` (skyrl/backends/skyrl_train/
 * training_batch.py) whose `__reduce__` is `_rebuild_tensor_batch(cls, state)`, each tensor of
 * `state.batch_dict` as numpy bytes `{format: "numpy", data, shape, dtype}` or, for bfloat16, a
 * torch.save ZIP `{format: "torch", data}`. The restricted pickle machine reads it (nothing is
 * run); each batch row becomes one slime-shaped sample, padding removed by the masks as
 * `convert_prompts_responses_to_batch_tensors` lays them out (sequences left-padded, response
 * tensors right-aligned, `response_mask` marking the last response_len columns).
 */

/** Rows read together when indexing (one chunk of the record source). */
const CHUNK_ROWS = 256;

/** The batch classes a SkyRL dump holds. */
const BATCH_CLASS = /^skyrl(\.backends\.skyrl_train|_train)\.training_batch\.\w*Batch$/;

/** True when an unpickled value is a SkyRL TensorBatch (class placeholder with its batch_dict). */
export function isSkyrlBatch(root: unknown): root is Record<string, unknown> {
  return (
    isRecord(root) &&
    typeof root.__class__ === "string" &&
    BATCH_CLASS.test(root.__class__) &&
    isRecord(root.batch_dict)
  );
}

/** numpy's dtype names (`str(arr.dtype)`, what SkyRL writes) as dtype codes. */
const DTYPE_CODES: Readonly<Record<string, string>> = {
  bool: "|b1",
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  uint16: "<u2",
  int32: "<i4",
  uint32: "<u4",
  int64: "<i8",
  uint64: "<u8",
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
};

/**
 * A numpy-format tensor, checked but not decoded: a 2-D one stays a NumpyArrayRef whose rows are
 * decoded when asked for (rowOf), so a large batch is not turned into number lists whole.
 */
function numpyTensor(entry: Record<string, unknown>, key: string): unknown {
  const { data, shape, dtype } = entry;
  const code = typeof dtype === "string" ? (DTYPE_CODES[dtype] ?? dtype) : undefined;
  if (!(data instanceof Uint8Array) || code === undefined || !Array.isArray(shape)) {
    throw new TorchFileError(`batch_dict.${key}: a numpy tensor without its data, shape or dtype`);
  }
  if (!shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new TorchFileError(`batch_dict.${key}: shape ${JSON.stringify(shape)} is not a shape`);
  }
  const { type, littleEndian } = numpyElementType(code);
  const array = new NumpyArrayRef(type, littleEndian, shape as number[], false, data);
  const numel = array.shape.reduce((a, b) => a * b, 1);
  if (data.length < numel * ELEMENT_BYTES[type]) {
    throw new TorchFileError(
      `a numpy array of shape [${shape.join(", ")}] holds ${data.length} bytes, fewer than its ${numel} ${type} values`,
    );
  }
  return shape.length === 2 ? array : numpyValues(array);
}

/** A TensorList entry, kept only so that its name is listed among the tensors not read. */
const TENSOR_LIST = Object.freeze({ tensor_list: true });

/** An in-memory byte range file (a `torch.save` blob inside the pickle). */
function memoryFile(bytes: Uint8Array): ByteRangeFile {
  return {
    byteLength: bytes.length,
    slice: (start, end) => bytes.slice(start, end).buffer as ArrayBuffer,
  };
}

/** One `batch_dict` entry as plain (nested) numbers; None stays null. */
async function tensorOf(entry: unknown, key: string): Promise<unknown> {
  if (entry === null || entry === undefined) return null;
  // Before SkyRL #982 (2026-01-28) each entry was the torch.save bytes themselves.
  const zipped = entry instanceof Uint8Array ? entry : isRecord(entry) ? entry.data : undefined;
  if (!isRecord(entry) && !(entry instanceof Uint8Array)) {
    throw new TorchFileError(`batch_dict.${key}: not a serialized tensor`);
  }
  if (entry instanceof Uint8Array || entry.format === "torch") {
    if (!(zipped instanceof Uint8Array)) {
      throw new TorchFileError(`batch_dict.${key}: a torch tensor without its torch.save bytes`);
    }
    try {
      const torch = await openTorchFile(memoryFile(zipped));
      return await plainValues(torch, torch.root);
    } catch (error) {
      throw new TorchFileError(`batch_dict.${key} (torch.save bytes): ${(error as Error).message}`);
    }
  }
  // pixel_values / image_grid_thw (a TensorList, one tensor per row): not token data, named
  // among the tensors not read.
  if (entry.format === "tensor_list") return TENSOR_LIST;
  if (entry.format === undefined || entry.format === "numpy") return numpyTensor(entry, key);
  throw new TorchFileError(`batch_dict.${key}: tensor format ${JSON.stringify(entry.format)}`);
}

/** The state's keys (everything else on the placeholder is a dict item). */
const STATE_KEYS = new Set(["__class__", "batch_dict", "batch_size", "device", "metadata"]);

/**
 * Dumps before SkyRL #1379 (2026-03-24) pickled the dict's items too, each tensor through
 * torch's own pickle (`_rebuild_tensor_v2` of a `_load_from_bytes` storage, legacyStorage.ts):
 * those items, as plain numbers, when there are any.
 */
function itemTensors(batch: Record<string, unknown>): Record<string, unknown> | undefined {
  const keys = Object.keys(batch).filter((k) => !STATE_KEYS.has(k));
  if (!keys.some((k) => batch[k] instanceof TensorRef)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    try {
      out[key] = plainOf(batch[key], new Map());
    } catch (error) {
      throw new TorchFileError(`item ${key}: ${(error as Error).message}`);
    }
  }
  return out;
}

/** The batch's tensors as plain nested numbers, by key. */
export async function skyrlTensors(
  batch: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const items = itemTensors(batch);
  if (items) return items;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(batch.batch_dict as Record<string, unknown>)) {
    try {
      out[key] = await tensorOf(entry, key);
    } catch (error) {
      const message = (error as Error).message;
      throw new TorchFileError(
        message.startsWith("batch_dict.") ? message : `batch_dict.${key}: ${message}`,
      );
    }
  }
  return out;
}

/** Row `r` of a 2-d tensor (decoded from its bytes when it is a numpy array), or an error naming the field and row. */
export function rowOf(tensors: Record<string, unknown>, key: string, r: number): number[] {
  const t = tensors[key];
  if (t instanceof NumpyArrayRef) {
    const [rows = 0, cols = 0] = t.shape;
    if (r >= rows) throw new TorchFileError(`row ${r}: ${key} has ${rows} rows`);
    const size = cols * ELEMENT_BYTES[t.type];
    const bytes = t.data.subarray(r * size, (r + 1) * size);
    return numpyValues(new NumpyArrayRef(t.type, t.littleEndian, [cols], false, bytes)) as number[];
  }
  const row = Array.isArray(t) ? t[r] : undefined;
  if (!Array.isArray(row) || !row.every((v) => typeof v === "number")) {
    throw new TorchFileError(`row ${r}: ${key} is not a [batch, length] number tensor`);
  }
  return row as number[];
}

/** How many trailing 1s `mask` has, after checking that it is 0s then 1s (left padding). */
function trailingOnes(mask: readonly number[], what: string): number {
  const first = mask.findIndex((v) => v !== 0);
  const ones = first < 0 ? 0 : mask.length - first;
  if (first >= 0 && mask.slice(first).some((v) => v !== 1)) {
    throw new TorchFileError(`${what} is not left padding (0s) then 1s`);
  }
  return ones;
}

/** The group (prompt) of each row, from `policy_prompt_boundaries` [(start, end)], if given. */
function groupsOf(metadata: unknown, rows: number): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(rows).fill(undefined);
  const bounds = isRecord(metadata) ? metadata.policy_prompt_boundaries : undefined;
  if (!Array.isArray(bounds)) return out;
  bounds.forEach((b, g) => {
    if (Array.isArray(b) && Number.isSafeInteger(b[0]) && Number.isSafeInteger(b[1])) {
      for (let r = Math.max(0, b[0]); r < Math.min(rows, b[1]); r++) out[r] = g;
    }
  });
  return out;
}

/** The response-aligned lanes kept per row: field -> where it goes. */
const RESPONSE_FIELDS = ["rollout_logprobs", "action_log_probs", "base_action_log_probs"] as const;
const PER_TOKEN_FIELDS = ["advantages", "returns", "kl", "values", "rewards"] as const;

/** Row `r` of the batch as a slime-shaped sample (formats/slime.ts reads it). */
export function skyrlRow(
  tensors: Record<string, unknown>,
  metadata: unknown,
  r: number,
  group: number | undefined,
): Record<string, unknown> {
  const seq = rowOf(tensors, "sequences", r);
  const attention = rowOf(tensors, "attention_mask", r);
  const responseMask = rowOf(tensors, "response_mask", r);
  if (attention.length !== seq.length) {
    throw new TorchFileError(
      `row ${r}: attention_mask has ${attention.length} columns, sequences ${seq.length}`,
    );
  }
  const real = trailingOnes(attention, `row ${r}: attention_mask`);
  const response = trailingOnes(responseMask, `row ${r}: response_mask`);
  if (response > real) {
    throw new TorchFileError(
      `row ${r}: response_mask marks ${response} tokens, attention_mask only ${real}`,
    );
  }
  const tokens = seq.slice(seq.length - real);
  const prompt = real - response;
  const tail = (key: string) => {
    const row = rowOf(tensors, key, r);
    if (row.length !== responseMask.length) {
      throw new TorchFileError(
        `row ${r}: ${key} has ${row.length} columns, response_mask ${responseMask.length}`,
      );
    }
    return row.slice(row.length - response);
  };
  const present = (key: string) => tensors[key] !== null && tensors[key] !== undefined;
  const lossMask = present("loss_mask") ? tail("loss_mask") : undefined;
  if (lossMask?.some((v) => v !== 0 && v !== 1)) {
    throw new TorchFileError(`row ${r}: loss_mask holds a value other than 0 and 1`);
  }
  const lane = (values: number[]) =>
    (new Array(prompt).fill(null) as (number | null)[]).concat(values);
  const lanes: Record<string, unknown> = {};
  if (present("action_log_probs")) lanes[TRAINER_LANE] = lane(tail("action_log_probs"));
  if (present("base_action_log_probs")) lanes[REFERENCE_LANE] = lane(tail("base_action_log_probs"));
  const perToken: Record<string, number[]> = {};
  for (const key of PER_TOKEN_FIELDS) if (present(key)) perToken[key] = tail(key);
  const known = new Set<string>([
    ...RESPONSE_FIELDS,
    ...PER_TOKEN_FIELDS,
    "sequences",
    "attention_mask",
    "response_mask",
    "loss_mask",
  ]);
  const out: Record<string, unknown> = {
    index: r,
    tokens,
    response_length: response,
    ...(lossMask ? { loss_mask: lossMask } : {}),
    ...(present("rollout_logprobs") ? { rollout_log_probs: tail("rollout_logprobs") } : {}),
    ...(Object.keys(lanes).length > 0 ? { logprob_lanes: lanes } : {}),
    ...(perToken.advantages ? { advantages: perToken.advantages } : {}),
    ...(group !== undefined ? { group_index: group } : {}),
  };
  const { advantages: _a, ...otherPerToken } = perToken;
  out.skyrl_batch = {
    row: r,
    ...otherPerToken,
    not_read: Object.keys(tensors).filter((k) => !known.has(k) && present(k)),
    metadata: isRecord(metadata) ? metadata : null,
  };
  return out;
}

/** The batch a bare pickle holds, or an error saying what it holds instead. */
export function skyrlBatchOf(root: unknown): Record<string, unknown> {
  if (isSkyrlBatch(root)) return root;
  const what =
    isRecord(root) && typeof root.__class__ === "string"
      ? `an object of class ${root.__class__}`
      : "no SkyRL TrainingInputBatch";
  throw new TorchFileError(
    `a bare Python pickle holding ${what}: the pickles read are SkyRL's dumped_data/*.pkl (dump_data of a TrainingInputBatch); rollouts are otherwise read from torch.save (.pt) files, JSON lines or Parquet`,
  );
}

/** A SkyRL `dumped_data/*.pkl` as a record source, row r as line r + 1 (the pickle is read whole). */
export async function skyrlRecordSource(file: ByteRangeFile): Promise<RecordSource> {
  if (file.byteLength > MAX_PICKLE_BYTES) {
    throw new TorchFileError(
      `a pickle of ${file.byteLength} bytes, more than the ${MAX_PICKLE_BYTES} read`,
    );
  }
  const batch = skyrlBatchOf(unpickle(await readBytes(file, 0, file.byteLength)));
  const tensors = await skyrlTensors(batch);
  const sequences = tensors.sequences;
  const rows =
    sequences instanceof NumpyArrayRef
      ? (sequences.shape[0] ?? 0)
      : Array.isArray(sequences)
        ? sequences.length
        : undefined;
  if (rows === undefined) {
    throw new TorchFileError("batch_dict.sequences is missing: a SkyRL batch without token ids");
  }
  return recordSource(tensors, batch.metadata, rows - padRows(batch.metadata, rows), file);
}

/**
 * The trailing rows `pad_training_input_batch` added (copies of row 0, loss mask 0, to a multiple
 * of the DP size): `metadata.pad_size`, which SkyRL's own statistics leave out too.
 */
export function padRows(metadata: unknown, rows: number): number {
  const pad = isRecord(metadata) ? metadata.pad_size : undefined;
  if (pad === undefined || pad === null) return 0;
  if (!Number.isSafeInteger(pad) || (pad as number) < 0 || (pad as number) > rows) {
    throw new TorchFileError(
      `metadata.pad_size ${JSON.stringify(pad)} is not a count of the batch's ${rows} rows`,
    );
  }
  return pad as number;
}

/** The first `rows` rows of the batch as a record source, decoded per chunk read. */
function recordSource(
  tensors: Record<string, unknown>,
  metadata: unknown,
  rows: number,
  file: ByteRangeFile,
): RecordSource {
  const groups = groupsOf(metadata, rows);
  // Rows are decoded per chunk read, a small first one so the first rows show at once.
  const chunks: { start: number; rows: number; bytes: number }[] = [];
  const perRow = file.byteLength / Math.max(1, rows);
  for (let start = 0; start < rows; ) {
    const n = Math.min(start === 0 ? 16 : CHUNK_ROWS, rows - start);
    chunks.push({ start, rows: n, bytes: Math.round(n * perRow) });
    start += n;
  }
  return {
    rows,
    columns: rows > 0 ? Object.keys(skyrlRow(tensors, metadata, 0, groups[0])) : [],
    groups: chunks,
    read: async (start, end) => {
      const out: Record<string, unknown>[] = [];
      for (let r = start; r < Math.min(end, rows); r++) {
        out.push(skyrlRow(tensors, metadata, r, groups[r]));
      }
      return out;
    },
  };
}

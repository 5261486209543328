/**
 * `.pt` rollout dump benchmark: a slime rollout dump written the way torch.save
 * writes it (a stored ZIP: `archive/data.pkl` + one `archive/data/N` storage per tensor;
 * `tokens` and `loss_mask` int64 tensors, `rollout_log_probs` float32, 1k prompt + 2k-8k
 * response tokens per sample), built here in TypeScript (no Python at bench time), and the
 * same samples as slime JSON lines. Both are indexed with the file worker's code
 * (recordSourceOf + indexRecords for the `.pt`, indexChunk in the worker's chunk sizes for the
 * JSONL), interleaved in the same run. Reports time to the first row and to every row summary.
 * Run: `npx tsx bench/torchIndex.bench.ts [--mib N]` (default 500 MiB of `.pt`). Files deleted after.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { createFileIndex, finishFileIndex, indexChunk } from "../src/core/files/fileIndexer";
import { indexRecords } from "../src/core/files/recordIndexer";
import { recordSourceOf } from "../src/workers/recordFiles";
import { op } from "../test-support/torchZip";

const mibArg = process.argv.indexOf("--mib");
const MIB = mibArg >= 0 ? Number(process.argv[mibArg + 1]) : 500;
const FIRST_CHUNK = 256 * 1024;
const CHUNK = 8 * 1024 * 1024;
const encoder = new TextEncoder();

interface Sample {
  readonly tokens: Int32Array;
  readonly responseLength: number;
  readonly logprobs: Float32Array;
  readonly reward: number;
  readonly index: number;
}

function sampleOf(k: number): Sample {
  const response = responseLengthOf(k);
  const tokens = new Int32Array(1024 + response);
  for (let i = 0; i < tokens.length; i++) tokens[i] = (k * 31 + i * 7919) % 128000;
  const logprobs = new Float32Array(response);
  for (let i = 0; i < response; i++) logprobs[i] = -((i * 2654435761) % 1000) / 250;
  return { tokens, responseLength: response, logprobs, reward: k % 2, index: k };
}

const u16 = (n: number) => [n & 0xff, (n >>> 8) & 0xff];
const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

/** A stored-ZIP writer streaming entries to a file (as torch.save writes them, uncompressed). */
function zipWriter(out: WriteStream) {
  let offset = 0;
  const central: number[] = [];
  let count = 0;
  const write = async (bytes: Uint8Array) => {
    offset += bytes.length;
    if (!out.write(bytes)) await new Promise<void>((r) => out.once("drain", () => r()));
  };
  return {
    async entry(name: string, parts: readonly Uint8Array[]) {
      const size = parts.reduce((n, p) => n + p.length, 0);
      const nameBytes = [...encoder.encode(name)];
      const at = offset;
      // torch.save records each entry's CRC-32, which the reader checks on every entry it reads.
      const crc = parts.reduce((c, p) => crc32(p, c), 0);
      const local = [...u32(0x04034b50), ...u16(20), ...u16(0), ...u16(0), ...u16(0), ...u16(0)];
      local.push(...u32(crc), ...u32(size), ...u32(size), ...u16(nameBytes.length), ...u16(0));
      await write(new Uint8Array([...local, ...nameBytes]));
      for (const part of parts) await write(part);
      central.push(...u32(0x02014b50), ...u16(20), ...u16(20), ...u16(0), ...u16(0));
      central.push(...u16(0), ...u16(0), ...u32(crc), ...u32(size), ...u32(size));
      central.push(...u16(nameBytes.length), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0));
      central.push(...u32(at), ...nameBytes);
      count += 1;
    },
    async finish() {
      const start = offset;
      await write(new Uint8Array(central));
      const end = [...u32(0x06054b50), ...u16(0), ...u16(0), ...u16(count), ...u16(count)];
      end.push(...u32(central.length), ...u32(start), ...u16(0));
      await write(new Uint8Array(end));
      await new Promise<void>((resolve, reject) =>
        out.end((e?: Error | null) => (e ? reject(e) : resolve())),
      );
    },
  };
}

/** `torch._utils._rebuild_tensor_v2` over storage `key` of `type` (1-D, `numel` elements). */
function tensor(type: "LongStorage" | "FloatStorage", key: string, numel: number): number[] {
  return [
    ...op.global("torch._utils", "_rebuild_tensor_v2"),
    ...op.mark,
    ...op.mark,
    ...op.str("storage"),
    ...op.global("torch", type),
    ...op.str(key),
    ...op.str("cpu"),
    ...op.int(numel),
    ...op.tuple,
    ...op.binpersid,
    ...op.int(0),
    ...op.int(numel),
    ...op.tuple1,
    ...op.int(1),
    ...op.tuple1,
    0x89,
    ...op.global("collections", "OrderedDict"),
    ...op.emptyTuple,
    ...op.reduce,
    ...op.tuple,
    ...op.reduce,
  ];
}

function binfloat(x: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x, false);
  return [0x47, ...b];
}

const int64Of = (ids: ArrayLike<number>) => {
  const out = new BigInt64Array(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = BigInt(ids[i] as number);
  return new Uint8Array(out.buffer);
};

const responseLengthOf = (k: number) => 2048 + ((k * 7919) % 6145);

/** The dump's `data.pkl`: `{rollout_id, samples}`, sample k's tensors in storages 3k..3k+2. */
export function dumpPickle(n: number): Uint8Array {
  const pickle: number[] = [...op.proto, ...op.emptyDict, ...op.mark];
  pickle.push(
    ...op.str("rollout_id"),
    ...op.int(3),
    ...op.str("samples"),
    ...op.emptyList,
    ...op.mark,
  );
  for (let k = 0; k < n; k++) {
    const response = responseLengthOf(k);
    pickle.push(...op.emptyDict, ...op.mark);
    pickle.push(...op.str("tokens"), ...tensor("LongStorage", String(3 * k), 1024 + response));
    pickle.push(...op.str("response_length"), ...op.int(response));
    pickle.push(...op.str("loss_mask"), ...tensor("LongStorage", String(3 * k + 1), response));
    pickle.push(
      ...op.str("rollout_log_probs"),
      ...tensor("FloatStorage", String(3 * k + 2), response),
    );
    pickle.push(
      ...op.str("reward"),
      ...binfloat(k % 2),
      ...op.str("status"),
      ...op.str("completed"),
    );
    pickle.push(...op.str("index"), ...op.int(k), ...op.str("group_index"), ...op.int(k >> 3));
    pickle.push(...op.setitems);
  }
  pickle.push(0x65, ...op.setitems, ...op.stop); // APPENDS, SETITEMS, STOP
  return new Uint8Array(pickle);
}

/**
 * Writes `n` samples as a slime `.pt` rollout dump (in torch.save's order: `data.pkl` first,
 * then the storages by key) and as slime JSON lines.
 */
async function generate(ptPath: string, jsonlPath: string, n: number): Promise<void> {
  const zip = zipWriter(createWriteStream(ptPath));
  const jsonl = createWriteStream(jsonlPath);
  await zip.entry("archive/data.pkl", [dumpPickle(n)]);
  for (let k = 0; k < n; k++) {
    const s = sampleOf(k);
    const mask = new Array<number>(s.responseLength).fill(1);
    await zip.entry(`archive/data/${3 * k}`, [int64Of(s.tokens)]);
    await zip.entry(`archive/data/${3 * k + 1}`, [int64Of(mask)]);
    await zip.entry(`archive/data/${3 * k + 2}`, [new Uint8Array(s.logprobs.buffer)]);
    const line = {
      tokens: Array.from(s.tokens),
      response_length: s.responseLength,
      loss_mask: mask,
      rollout_log_probs: Array.from(s.logprobs),
      reward: s.reward,
      status: "completed",
      index: s.index,
      group_index: k >> 3,
    };
    if (!jsonl.write(`${JSON.stringify(line)}\n`)) {
      await new Promise<void>((r) => jsonl.once("drain", () => r()));
    }
  }
  await zip.entry("archive/version", [encoder.encode("3\n")]);
  await zip.finish();
  await new Promise<void>((resolve, reject) =>
    jsonl.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
}

/** The `.pt` indexed as the file worker indexes it: recordSourceOf (torch reader) + indexRecords. */
async function indexTorch(path: string, rows: number) {
  const t = performance.now();
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  const bytes = {
    size: async () => size,
    read: async (start: number, end: number) => {
      const out = new Uint8Array(end - start);
      await handle.read(out, 0, out.length, start);
      return out;
    },
  };
  const records = await recordSourceOf(bytes, path, size, undefined);
  if (!records) throw new Error("not read as records");
  const openMs = performance.now() - t;
  const index = createFileIndex(path);
  let firstRowMs = 0;
  for await (const delta of indexRecords(records, index)) {
    if (firstRowMs === 0 && delta.rows.length > 0) firstRowMs = performance.now() - t;
  }
  const allMs = performance.now() - t;
  await handle.close();
  if (index.rows.length !== rows || index.errors.length > 0) {
    throw new Error(`.pt: ${index.rows.length} rows, ${index.errors.length} errors`);
  }
  return { openMs, firstRowMs, allMs };
}

/** The JSONL indexed as the file worker indexes it: chunks of its sizes through indexChunk. */
async function indexJsonl(path: string, rows: number) {
  const t = performance.now();
  const handle = await open(path, "r");
  const index = createFileIndex(path);
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(CHUNK);
  let firstRowMs = 0;
  let position = 0;
  for (let size = FIRST_CHUNK; ; size = CHUNK) {
    const { bytesRead } = await handle.read(buffer, 0, size, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const delta = indexChunk(index, buffer.subarray(0, bytesRead), (b) => decoder.decode(b));
    if (firstRowMs === 0 && delta.rows.length > 0) firstRowMs = performance.now() - t;
  }
  finishFileIndex(index, (b) => decoder.decode(b));
  const allMs = performance.now() - t;
  await handle.close();
  if (index.rows.length !== rows || index.errors.length > 0) {
    throw new Error(`JSONL: ${index.rows.length} rows, ${index.errors.length} errors`);
  }
  return { firstRowMs, allMs };
}

const ROUNDS = 2;

export default async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rollout-lens-torch-bench-"));
  const pt = join(dir, "rollout.pt");
  const jsonl = join(dir, "rollout.jsonl");
  try {
    // ~ (6144 int64 tokens + 5120 int64 mask + 5120 float32 logprobs) bytes per sample.
    const rows = Math.max(8, Math.round((MIB * 1024 * 1024) / (6144 * 8 + 5120 * 12)));
    await generate(pt, jsonl, rows);
    const ptMib = (await stat(pt)).size / 1024 ** 2;
    const jsonlMib = (await stat(jsonl)).size / 1024 ** 2;
    console.log(
      `same ${rows} samples: .pt ${ptMib.toFixed(0)} MiB, JSONL ${jsonlMib.toFixed(0)} MiB`,
    );
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    for (let round = 1; round <= ROUNDS; round++) {
      const j = await indexJsonl(jsonl, rows);
      const p = await indexTorch(pt, rows);
      const rate = (ms: number) => `${(rows / (ms / 1000)).toFixed(0)} rows/s`;
      console.log(
        `round ${round}: JSONL first row ${fmt(j.firstRowMs)}, every summary ${fmt(j.allMs)} (${rate(j.allMs)}); ` +
          `.pt first row ${fmt(p.firstRowMs)} (goal ≤ 1000 ms; ZIP directory + data.pkl unpickled ${fmt(p.openMs)}), every summary ${fmt(p.allMs)} (${rate(p.allMs)}), ` +
          `${((100 * j.allMs) / p.allMs).toFixed(0)}% of the JSONL path's speed (goal ≥ 50%)`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("torchIndex.bench.ts")) await main();

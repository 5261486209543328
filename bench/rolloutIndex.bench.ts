/**
 * Indexing benchmark: a generated 1 GiB rollout-lens/v1 JSONL (8k-32k tokens per line,
 * logprobs included) indexed with the worker's core code, next to a raw sequential read + newline
 * scan of the same file in the same run. Run: `npx tsx bench/rolloutIndex.bench.ts [--gib N]`.
 * The file is written to the OS temp dir and deleted afterwards.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileIndex, finishFileIndex, indexChunk } from "../src/core/files/fileIndexer";
import { createLineIndex, finishLineIndex, scanChunk } from "../src/core/files/lineIndex";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { generateLine } from "../src/test/rolloutFileGenerator";

const gibArg = process.argv.indexOf("--gib");
const GIB = gibArg >= 0 ? Number(process.argv[gibArg + 1]) : 1;
const TARGET_BYTES = GIB * 1024 ** 3;
// Same chunk schedule as src/workers/rolloutFile.worker.ts.
const FIRST_CHUNK = 256 * 1024;
const CHUNK = 8 * 1024 * 1024;

const mib = (bytes: number) => bytes / 1024 ** 2;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

let peakRss = 0;
let peakHeap = 0;
function sampleMemory(): void {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
}

async function generate(path: string): Promise<{ bytes: number; lines: number }> {
  const out = createWriteStream(path);
  let bytes = 0;
  let lines = 0;
  while (bytes < TARGET_BYTES) {
    // 8k-32k tokens, deterministic per line.
    const tokens = 8192 + ((lines * 7919) % 24577);
    const text = `${generateLine(lines, { tokens, groupSize: 8 })}\n`;
    bytes += Buffer.byteLength(text);
    lines += 1;
    if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
  return { bytes, lines };
}

/** Reads the file sequentially in the worker's chunk sizes, handing each chunk to `onChunk`. */
async function readChunks(path: string, onChunk: (chunk: Uint8Array) => void): Promise<number> {
  const handle = await open(path, "r");
  const buffer = new Uint8Array(CHUNK);
  let position = 0;
  let size = FIRST_CHUNK;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, size, position);
      if (bytesRead === 0) return position;
      onChunk(buffer.subarray(0, bytesRead));
      position += bytesRead;
      size = CHUNK;
    }
  } finally {
    await handle.close();
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rollout-lens-bench-"));
  const path = join(dir, "bench.jsonl");
  try {
    const gen = await timed(() => generate(path));
    const size = (await stat(path)).size;
    console.log(
      `file: ${fmt(mib(size))} MiB, ${gen.value.lines} lines (${fmt(size / gen.value.lines / 1024, 0)} KiB/line), generated in ${fmt(gen.ms / 1000)} s`,
    );

    // Warm the page cache so every pass below reads from the same place.
    await readChunks(path, () => {});

    // Alternate the two passes and keep each one's best: other processes share these 2 cores.
    const rawPass = () =>
      timed(() => {
        let newlines = 0;
        return readChunks(path, (chunk) => {
          let at = chunk.indexOf(10);
          while (at !== -1) {
            newlines += 1;
            at = chunk.indexOf(10, at + 1);
          }
        }).then(() => newlines);
      });
    const offsetPass = () =>
      timed(async () => {
        const index = createLineIndex();
        await readChunks(path, (chunk) => {
          scanChunk(index, chunk);
        });
        finishLineIndex(index);
        return index.count;
      });
    let raw = await rawPass();
    let offsets = await offsetPass();
    for (let round = 1; round < 3; round++) {
      const r = await rawPass();
      if (r.ms < raw.ms) raw = r;
      const o = await offsetPass();
      if (o.ms < offsets.ms) offsets = o;
    }

    const decoder = new TextDecoder();
    const decode = (b: Uint8Array) => decoder.decode(b);
    const baseRss = process.memoryUsage().rss;
    peakRss = baseRss;
    peakHeap = 0;
    let firstRowMs: number | undefined;
    const started = performance.now();
    const full = await timed(async () => {
      const index = createFileIndex(path);
      await readChunks(path, (chunk) => {
        const delta = indexChunk(index, chunk, decode);
        if (firstRowMs === undefined && delta.rows.length > 0)
          firstRowMs = performance.now() - started;
        sampleMemory();
      });
      finishFileIndex(index, decode);
      sampleMemory();
      return index;
    });

    const rate = (ms: number) => mib(size) / (ms / 1000);
    console.log(
      `raw read + newline scan (best of 3): ${fmt(raw.ms)} ms  ${fmt(rate(raw.ms))} MiB/s  (${raw.value} lines)`,
    );
    console.log(
      `offset index, core scanChunk (best of 3): ${fmt(offsets.ms)} ms  ${fmt(rate(offsets.ms))} MiB/s  ratio ${fmt((raw.ms / offsets.ms) * 100, 0)}% of raw (target >= 50%)`,
    );
    console.log(
      `offset index + row summaries:   ${fmt(full.ms)} ms  ${fmt(rate(full.ms))} MiB/s  ratio ${fmt((raw.ms / full.ms) * 100, 0)}% of raw  (${full.value.rows.length} rows, ${full.value.errors.length} bad lines)`,
    );
    console.log(
      `time to first browsable row:    ${fmt(firstRowMs ?? Number.NaN)} ms (target <= 1500 ms)`,
    );
    console.log(
      `peak memory while indexing:     rss ${fmt(mib(peakRss))} MiB (+${fmt(mib(peakRss - baseRss))} over start), heap+buffers ${fmt(mib(peakHeap))} MiB (target <= 300 MB)`,
    );

    // Parsing one 32k-token line into a trajectory against bare JSON.parse of the same line.
    const line = generateLine(7, { tokens: 32768 });
    const reps = 20;
    const bare = await timed(async () => {
      for (let i = 0; i < reps; i++) JSON.parse(line);
    });
    const ours = await timed(async () => {
      for (let i = 0; i < reps; i++) readRolloutLine(line, 1);
    });
    console.log(
      `one 32k-token line (${fmt(line.length / 1024, 0)} KiB): JSON.parse ${fmt(bare.ms / reps, 2)} ms, readRolloutLine ${fmt(ours.ms / reps, 2)} ms, ratio ${fmt((bare.ms / ours.ms) * 100, 0)}% (target >= 80%)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

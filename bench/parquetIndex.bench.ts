/**
 * Parquet indexing benchmark: a generated prime-rl rollout table (1k prompt + 2k-8k
 * response tokens per row, int32 ids and float32 logprobs, snappy, 128 rows per row group) opened
 * and indexed with the worker's core code (openParquet + indexRecords over a byte-range
 * AsyncBuffer on a file handle), next to a raw sequential read of the same file in the same run.
 * Reports the index (footer, row -> row group map and the first rows' summaries: the table is
 * browsable) as a share of the raw read, and every row's summary (from projected columns,
 * parquetSummaries.ts) as a share of a read that also decompresses every page (what any reader
 * that looks at the values must do); each round also times summaries from full records.
 * Run: `npx tsx bench/parquetIndex.bench.ts [--mib N] [--group ROWS]` (default 128 MiB, 128 rows
 * per group; pyarrow's default groups are far larger). The file is deleted after.
 */
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadataAsync, type SchemaElement } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { decompressPage } from "hyparquet/src/datapage.js";
import { fileWriter, ParquetWriter } from "hyparquet-writer";
import { createFileIndex } from "../src/core/files/fileIndexer";
import { parquetRecordSource } from "../src/core/files/parquetSource";
import { indexRecords } from "../src/core/files/recordIndexer";
import { openParquet } from "../src/core/formats/parquet";

const mibArg = process.argv.indexOf("--mib");
const MIB = mibArg >= 0 ? Number(process.argv[mibArg + 1]) : 128;
const groupArg = process.argv.indexOf("--group");
const ROWS_PER_GROUP = groupArg >= 0 ? Number(process.argv[groupArg + 1]) : 128;

const list = (name: string, type: SchemaElement["type"]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type, repetition_type: "OPTIONAL" },
];

/** Writes the table a batch of row groups at a time (a 1 GiB table never sits in memory whole). */
function generate(path: string): number {
  // ~ (1k + avg 5k) * 8 bytes per row before compression.
  const rows = Math.max(ROWS_PER_GROUP, Math.round((MIB * 1024 * 1024) / (6000 * 8)));
  const writer = new ParquetWriter({
    writer: fileWriter(path),
    schema: [
      { name: "root", num_children: 4 },
      ...list("input_tokens", "INT32"),
      ...list("output_tokens", "INT32"),
      ...list("output_logprobs", "FLOAT"),
      { name: "rewards", type: "FLOAT", repetition_type: "OPTIONAL" },
    ],
  });
  const batch = ROWS_PER_GROUP * Math.max(1, Math.floor(2048 / ROWS_PER_GROUP));
  for (let from = 0; from < rows; from += batch) {
    const input: number[][] = [];
    const output: number[][] = [];
    const logprobs: number[][] = [];
    const rewards: number[] = [];
    for (let r = from; r < Math.min(rows, from + batch); r++) {
      const n = 2048 + ((r * 7919) % 6145);
      input.push(Array.from({ length: 1024 }, (_, k) => (r * 31 + k * 17) % 151643));
      output.push(Array.from({ length: n }, (_, k) => (r * 13 + k * 7919) % 151643));
      logprobs.push(Array.from({ length: n }, (_, k) => -((k * 2654435761) % 1000) / 250));
      rewards.push(r % 2);
    }
    writer.write({
      columnData: [
        { name: "input_tokens", data: input },
        { name: "output_tokens", data: output },
        { name: "output_logprobs", data: logprobs },
        { name: "rewards", data: rewards },
      ],
      rowGroupSize: ROWS_PER_GROUP,
    });
  }
  writer.finish();
  return rows;
}

/** An AsyncBuffer over a file handle: every slice is one positional read. */
async function fileBuffer(path: string) {
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  return {
    handle,
    buffer: {
      byteLength: size,
      async slice(start: number, end?: number) {
        const length = (end ?? size) - start;
        const bytes = new Uint8Array(length);
        await handle.read(bytes, 0, length, start);
        return bytes.buffer;
      },
    },
  };
}

async function rawRead(path: string): Promise<number> {
  const handle = await open(path, "r");
  const chunk = new Uint8Array(8 * 1024 * 1024);
  let position = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) return position;
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/**
 * A floor for any reader that looks at the values: every column chunk read and every page
 * decompressed (hyparquet's Snappy), nothing decoded.
 */
async function decompressAll(path: string): Promise<void> {
  const { handle, buffer } = await fileBuffer(path);
  try {
    const metadata = await parquetMetadataAsync(buffer);
    for (const group of metadata.row_groups) {
      for (const chunk of group.columns) {
        const meta = chunk.meta_data;
        if (!meta) continue;
        const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
        const bytes = new Uint8Array(
          await buffer.slice(start, start + Number(meta.total_compressed_size)),
        );
        const reader = { view: new DataView(bytes.buffer), offset: 0 };
        while (reader.offset < bytes.length - 1) {
          const header = parquetHeader(reader);
          const levels =
            (header.data_page_header_v2?.definition_levels_byte_length ?? 0) +
            (header.data_page_header_v2?.repetition_levels_byte_length ?? 0);
          const body = bytes.subarray(
            reader.offset + levels,
            reader.offset + header.compressed_page_size,
          );
          decompressPage(body, header.uncompressed_page_size - levels, meta.codec, undefined);
          reader.offset += header.compressed_page_size;
        }
      }
    }
  } finally {
    await handle.close();
  }
}

/**
 * Opens and indexes the file as the file worker does. `firstRowMs`: footer read, row -> row group
 * map built and the first rows summarized (the table is browsable, its row count known);
 * `summariesMs`: every row's summary. `projected: false` summarizes every row from its full
 * record (the path before summaries came from columns).
 */
async function indexFile(path: string, rows: number, projected = true) {
  const t = performance.now();
  const { handle, buffer } = await fileBuffer(path);
  const parquet = await openParquet(buffer);
  const index = createFileIndex(path);
  let firstRowMs = 0;
  const { summarize, ...whole } = parquetRecordSource(parquet);
  const source = projected ? { ...whole, summarize } : whole;
  for await (const delta of indexRecords(source, index)) {
    if (firstRowMs === 0 && delta.rows.length > 0) firstRowMs = performance.now() - t;
  }
  const summariesMs = performance.now() - t;
  await handle.close();
  if (index.rows.length !== rows || index.errors.length > 0) {
    throw new Error(`indexed ${index.rows.length} rows, ${index.errors.length} errors`);
  }
  return { firstRowMs, summariesMs };
}

const ROUNDS = 3;

export default async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rollout-lens-parquet-bench-"));
  const path = join(dir, "rollouts.parquet");
  try {
    const rows = generate(path);
    const { size } = await stat(path);
    const mb = size / 1024 ** 2;
    console.log(
      `file: ${mb.toFixed(1)} MiB, ${rows} rows, ${Math.ceil(rows / ROWS_PER_GROUP)} row groups`,
    );
    const rate = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MiB/s`;
    // Interleaved rounds: the machine is shared, so each figure is set against its own round's.
    for (let round = 1; round <= ROUNDS; round++) {
      let t = performance.now();
      await rawRead(path);
      const rawMs = performance.now() - t;
      t = performance.now();
      await decompressAll(path);
      const floorMs = performance.now() - t;
      const { firstRowMs, summariesMs } = await indexFile(path, rows);
      const share = (base: number, ms: number) => `${((100 * base) / ms).toFixed(0)}%`;
      const full = await indexFile(path, rows, false);
      console.log(
        `round ${round}: raw read ${rawMs.toFixed(0)} ms (${rate(rawMs)}); read + decompress every page ${floorMs.toFixed(0)} ms (${rate(floorMs)}); ` +
          `index (footer + first rows: table browsable) ${firstRowMs.toFixed(0)} ms (${rate(firstRowMs)}, ${share(rawMs, firstRowMs)} of raw); ` +
          `every summary ${summariesMs.toFixed(0)} ms (${rate(summariesMs)}, ${share(floorMs, summariesMs)} of decompress)` +
          `; every summary from full records ${full.summariesMs.toFixed(0)} ms (${rate(full.summariesMs)}, ${(full.summariesMs / summariesMs).toFixed(2)}x the time)`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("parquetIndex.bench.ts")) await main();

import type { AsyncBuffer } from "hyparquet";
import { describe, expect, it } from "vitest";
import {
  ART_ROWS,
  artParquet,
  PRIME_ROLLOUT_ROWS,
  PRIME_SAMPLE_ROWS,
  primeRolloutParquet,
  primeSamplesParquet,
} from "../../test/parquetFixtures";
import { isParquetHead } from "../files/sniffFile";
import { flattenSegments } from "../trajectory/flatten";
import { idsAbsentReason } from "./idsAbsent";
import { openParquet, parquetRecords, readParquetRecords } from "./parquet";
import { readRolloutValue } from "./readRolloutLine";
import { writeTextRecord } from "./textRecords";

/** An AsyncBuffer over bytes in memory that records every range read. */
function counted(buffer: ArrayBuffer): AsyncBuffer & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    byteLength: buffer.byteLength,
    reads,
    slice(start: number, end?: number) {
      reads.push([start, end ?? buffer.byteLength]);
      return Promise.resolve(buffer.slice(start, end));
    },
  };
}

async function readAll(buffer: ArrayBuffer) {
  const parquet = await openParquet(counted(buffer));
  const out = [];
  for await (const { lineNo, value } of parquetRecords(parquet)) {
    out.push({ value, result: readRolloutValue(value, lineNo, undefined, "x.parquet") });
  }
  return { parquet, out };
}

describe("Parquet rollouts", () => {
  it("recognises the magic bytes", () => {
    expect(isParquetHead(new Uint8Array(primeRolloutParquet()))).toBe(true);
    expect(isParquetHead(new TextEncoder().encode('{"tokens":[]}'))).toBe(false);
  });

  it("indexes row groups like lines and reads one row by byte range", async () => {
    const buffer = primeRolloutParquet(2);
    const file = counted(buffer);
    const parquet = await openParquet(file);
    expect(parquet.rows).toBe(3);
    expect(parquet.rowGroups).toEqual([
      { start: 0, rows: 2 },
      { start: 2, rows: 1 },
    ]);
    expect(parquet.producer).toBe("prime-rl-rollouts");
    file.reads.length = 0;
    const [row] = await readParquetRecords(parquet, 2, 3);
    const last = PRIME_ROLLOUT_ROWS[2];
    expect(row?.tokens).toEqual([...(last?.input_tokens ?? []), ...(last?.output_tokens ?? [])]);
    // Only the last row group's bytes were read: nothing before its first column chunk.
    const firstGroupEnd = Number(
      parquet.metadata.row_groups[0]?.columns.at(-1)?.meta_data?.data_page_offset ?? 0,
    );
    expect(file.reads.length).toBeGreaterThan(0);
    for (const [start] of file.reads) expect(start).toBeGreaterThan(firstGroupEnd);
  });

  it("prime-rl rollouts map to slime samples: prompt + response tokens, response logprobs, reward", async () => {
    const { out } = await readAll(primeRolloutParquet());
    expect(out).toHaveLength(3);
    const [first] = out;
    const result = first?.result;
    if (result?.kind !== "trajectories") throw new Error(JSON.stringify(result));
    // Read as slime Samples, named for the tool that wrote the table.
    expect(result.format).toBe("prime-rl-rollouts");
    const [t] = result.trajectories;
    expect(t?.format).toBe("prime-rl-rollouts");
    expect(t?.source).toEqual({ kind: "file", path: "x.parquet", line: 1, row: 0 });
    expect(t?.segments.map((s) => [s.kind, s.tokenIds.length])).toEqual([
      ["prompt", 13],
      ["model", 4],
    ]);
    expect(t?.segments[1]?.logprobs).toEqual([-0.5, -0.25, -0.125, -0.0625]);
    expect(t?.reward).toBe(1);
    expect(t?.metadata).toMatchObject({ advantages: 0.5, step: 12, seed: 42, task_type: "math" });
    expect(flattenSegments(t?.segments ?? []).tokenIds.length).toBe(17);
  });

  it.each(["ZSTD", "SNAPPY", "UNCOMPRESSED"] as const)(
    "a %s file reads the same records as the others",
    async (codec) => {
      const buffer = primeRolloutParquet(2, codec);
      const parquet = await openParquet(counted(buffer));
      const codecs = parquet.metadata.row_groups.flatMap((g) =>
        g.columns.map((c) => c.meta_data?.codec),
      );
      expect(new Set(codecs)).toEqual(new Set([codec]));
      const records = await readParquetRecords(parquet, 0, 3);
      const plain = await readParquetRecords(
        await openParquet(counted(primeRolloutParquet(2, "UNCOMPRESSED"))),
        0,
        3,
      );
      expect(records).toEqual(plain);
      expect(records[2]).toMatchObject({ response_length: 4, reward: 0, seed: 44 });
    },
  );

  it("a ZSTD file fails without the ZSTD decoder: the compressors are what opens it", async () => {
    const { parquetReadObjects } = await import("hyparquet");
    await expect(
      parquetReadObjects({ file: counted(primeRolloutParquet(2, "ZSTD")) }),
    ).rejects.toThrow(/unsupported compression codec: ZSTD/);
  });

  it("prime-rl samples open as text with reward and advantage, and say why drift is off", async () => {
    const { parquet, out } = await readAll(primeSamplesParquet());
    expect(parquet.producer).toBe("records");
    expect(parquet.rowGroups).toHaveLength(2);
    const rows = out.map(({ result }) => (result.kind === "trajectories" ? result : undefined));
    expect(rows.map((r) => r?.format)).toEqual(["prime", "prime"]);
    const t = rows[0]?.trajectories[0];
    expect(t?.messages).toEqual([
      { role: "user", content: "What is 15*7?" },
      { role: "assistant", content: "105" },
    ]);
    expect(t?.reward).toBe(1);
    expect(t?.segments).toEqual([]);
    expect(t && writeTextRecord(t)).toEqual(PRIME_SAMPLE_ROWS[0]);
    expect(idsAbsentReason("prime")).toMatch(/decoded text only/);
  });

  it("ART trajectories open as text with their messages and group", async () => {
    const { out } = await readAll(artParquet());
    const results = out.map(({ result }) => (result.kind === "trajectories" ? result : undefined));
    expect(results.map((r) => r?.format)).toEqual(["art", "art"]);
    const t = results[1]?.trajectories[0];
    expect(t?.messages?.map((m) => m.content)).toEqual([
      "You are a calculator.",
      "What is 15*7?",
      "106",
    ]);
    expect(t?.group).toBe("0");
    expect(t && writeTextRecord(t)).toEqual(ART_ROWS[1]);
  });

  it("an unknown table opens through a column mapping", async () => {
    // ART's table has no ids; map prime-rl's rollout columns by hand instead of by producer.
    const parquet = await openParquet(counted(primeRolloutParquet()), {
      mapping: {
        layout: "split",
        promptTokenIds: "input_tokens",
        responseTokenIds: "output_tokens",
        responseLogprobs: "output_logprobs",
        reward: "task_rewards",
      },
    });
    expect(parquet.producer).toBe("mapped");
    // The row comes as stored; the reader applies the mapping.
    const [record] = await readParquetRecords(parquet, 0, 1);
    expect(Object.keys(record ?? {})).toContain("input_tokens");
    const result = readRolloutValue(record, 1, "slime", "t.parquet", parquet.mapping);
    const t = result.kind === "trajectories" ? result.trajectories[0] : undefined;
    expect(t?.segments.map((s) => s.tokenIds.length)).toEqual([13, 4]);
    expect(t?.reward).toBe(1);
    expect(t?.metadata.rewards).toBe(1);
    // So a bad value is named by the table's own column, not by the slime field it maps to.
    const bad = readRolloutValue(
      { ...record, output_tokens: [1, "x"] },
      7,
      "slime",
      "t.parquet",
      parquet.mapping,
    );
    expect(bad.kind === "error" ? bad.error : undefined).toMatchObject({
      line: 7,
      field: "output_tokens[1]",
    });
  });

  it("a file that is not Parquet fails with hyparquet's reason, not a crash", async () => {
    const bytes = new TextEncoder().encode("PAR1 not really a parquet file PAR1");
    await expect(openParquet(counted(bytes.buffer))).rejects.toThrow(/parquet/i);
  });
});

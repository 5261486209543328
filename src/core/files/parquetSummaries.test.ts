import type { SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { type FixtureCodec, primeRolloutParquet, zstdStored } from "../../test/parquetFixtures";
import { openParquet } from "../formats/parquet";
import { createFileIndex } from "./fileIndexer";
import { parquetRecordSource } from "./parquetSource";
import { summarizeParquetRows } from "./parquetSummaries";
import { indexRecords } from "./recordIndexer";

const list = (name: string, type: SchemaElement["type"]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type, repetition_type: "OPTIONAL" },
];
const scalar = (name: string, type: SchemaElement["type"], utf8 = false): SchemaElement => ({
  name,
  type,
  repetition_type: "OPTIONAL",
  ...(utf8 ? { converted_type: "UTF8" as const } : {}),
});

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface TableOptions {
  readonly rows: number;
  readonly seed: number;
  readonly groupRows: number;
  readonly codec?: FixtureCodec;
  /** Extra columns: a number list only kept in metadata, text, a `loss_mask` the reader maps. */
  readonly extra?: readonly ("input_logprobs" | "text" | "loss_mask" | "status")[];
  /** Make this row's first output token negative (an error the full path reports). */
  readonly badRow?: number;
  /** Give this row's response a logprob > 0 (an invariant the full path reports). */
  readonly positive?: number;
  /** Give this row a response and no prompt. */
  readonly noPrompt?: number;
}

/** A prime-rl rollout table with varied lengths, nulls, NaN logprobs and bucket-crossing rows. */
function table(o: TableOptions): ArrayBuffer {
  const rand = prng(o.seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const input: (number[] | null)[] = [];
  const output: (number[] | null)[] = [];
  const logprobs: ((number | null)[] | null)[] = [];
  const rewards: (number | null)[] = [];
  const extra: Record<string, unknown[]> = {
    input_logprobs: [],
    text: [],
    loss_mask: [],
    status: [],
  };
  for (let r = 0; r < o.rows; r++) {
    const n = r === o.noPrompt ? 4 : pick([0, 1, 5, 300, 1200, 3000]);
    // No prompt only without a response (a response first is an invariant error, tested below).
    const p = n === 0 ? pick([0, 3]) : pick([1, 7, 900, 1500]);
    const prompt = Array.from({ length: p }, () => Math.floor(rand() * 151000));
    input.push(r === o.noPrompt ? [] : p === 0 && rand() < 0.5 ? null : prompt);
    const out = Array.from({ length: n }, () => Math.floor(rand() * 151000));
    if (r === o.badRow && out.length > 0) out[0] = -3;
    output.push(n === 0 && rand() < 0.3 ? null : out);
    const lp = out.map(() => {
      const x = rand();
      if (x < 0.02) return null;
      if (x < 0.03) return Number.NaN;
      if (o.positive !== undefined && r === o.positive) return 0.5;
      return Math.fround(-rand() * 5);
    });
    logprobs.push(rand() < 0.1 ? null : lp);
    rewards.push(rand() < 0.1 ? null : Math.fround(rand()));
    extra.input_logprobs?.push(rand() < 0.5 ? null : [Math.fround(-rand())]);
    extra.text?.push(`Row ${r} SAYS hi`);
    extra.loss_mask?.push(out.map(() => (rand() < 0.5 ? 1 : 0)));
    extra.status?.push(pick(["completed", "truncated", "weird"]));
  }
  const fields: SchemaElement[] = [
    ...list("input_tokens", "INT32"),
    ...list("output_tokens", "INT32"),
    ...list("output_logprobs", "FLOAT"),
    scalar("rewards", "FLOAT"),
  ];
  const columnData: { name: string; data: unknown[] }[] = [
    { name: "input_tokens", data: input },
    { name: "output_tokens", data: output },
    { name: "output_logprobs", data: logprobs },
    { name: "rewards", data: rewards },
  ];
  for (const name of o.extra ?? []) {
    if (name === "text" || name === "status") fields.push(scalar(name, "BYTE_ARRAY", true));
    else fields.push(...list(name, name === "loss_mask" ? "INT32" : "FLOAT"));
    columnData.push({ name, data: extra[name] ?? [] });
  }
  const top = 4 + (o.extra?.length ?? 0);
  return parquetWriteBuffer({
    schema: [{ name: "root", num_children: top }, ...fields],
    columnData: columnData.map((c) => ({ name: c.name, data: c.data as never })),
    rowGroupSize: o.groupRows,
    codec: o.codec ?? "SNAPPY",
    ...(o.codec === "ZSTD" ? { compressors: { ZSTD: zstdStored } } : {}),
  });
}

async function open(buffer: ArrayBuffer) {
  return openParquet({ byteLength: buffer.byteLength, slice: (s, e) => buffer.slice(s, e) });
}

/** The index built with summaries from columns, and with every row read whole. */
async function bothIndexes(buffer: ArrayBuffer) {
  const projected = createFileIndex("t.parquet");
  const source = parquetRecordSource(await open(buffer));
  let fromColumns = 0;
  const counted: typeof source = {
    ...source,
    summarize: async (...args) => {
      const rows = await source.summarize?.(...args);
      fromColumns += rows?.length ?? 0;
      return rows;
    },
  };
  for await (const _ of indexRecords(counted, projected));
  const full = createFileIndex("t.parquet");
  const { summarize: _unused, ...whole } = parquetRecordSource(await open(buffer));
  for await (const _ of indexRecords(whole, full));
  return { projected, full, fromColumns };
}

describe("Parquet summaries from projected columns", () => {
  const cases: [string, TableOptions][] = [
    ["plain, 64-row groups", { rows: 200, seed: 1, groupRows: 64 }],
    ["uncompressed, one group", { rows: 90, seed: 2, groupRows: 1000, codec: "UNCOMPRESSED" }],
    ["ZSTD, 7-row groups", { rows: 60, seed: 3, groupRows: 7, codec: "ZSTD" }],
    [
      "metadata-only list and text",
      { rows: 80, seed: 4, groupRows: 30, extra: ["input_logprobs", "text"] },
    ],
    ["a status column", { rows: 80, seed: 5, groupRows: 30, extra: ["status"] }],
    ["a logprob > 0", { rows: 80, seed: 9, groupRows: 30, positive: 70 }],
  ];
  for (const [name, options] of cases) {
    it(`equal the full path's summaries: ${name}`, async () => {
      const { projected, full, fromColumns } = await bothIndexes(table(options));
      expect(projected.rows.length).toBe(options.rows - (options.positive === undefined ? 0 : 1));
      // Every row after the first 16 (the head, read whole) came from the columns, but for the
      // group holding a row the full path reports.
      if (options.positive === undefined)
        expect(fromColumns).toBe(options.rows - Math.min(16, options.groupRows));
      else expect(fromColumns).toBeGreaterThan(0);
      expect(projected.errors).toEqual(full.errors);
      expect(projected.format).toBe(full.format);
      expect(projected.rows).toEqual(full.rows);
    });
  }

  it("are taken from the columns (not the records) past the first rows", async () => {
    const parquet = await open(table({ rows: 100, seed: 6, groupRows: 50 }));
    const rows = await summarizeParquetRows(parquet, 50, 100, 50, "prime-rl-rollouts", "t.parquet");
    expect(rows?.map((r) => r.line)).toEqual(Array.from({ length: 50 }, (_, k) => 51 + k));
    // A range inside a group (the first group's rows after the head).
    const inside = await summarizeParquetRows(
      parquet,
      16,
      50,
      16,
      "prime-rl-rollouts",
      "t.parquet",
    );
    expect(inside?.map((r) => r.index)).toEqual(Array.from({ length: 34 }, (_, k) => 16 + k));
  });

  it("equal the full path on prime-rl's own rollout table (every codec)", async () => {
    for (const codec of ["UNCOMPRESSED", "SNAPPY", "ZSTD"] as const) {
      const { projected, full } = await bothIndexes(primeRolloutParquet(1, codec));
      expect(projected.rows).toEqual(full.rows);
      const parquet = await open(primeRolloutParquet(1, codec));
      expect(await summarizeParquetRows(parquet, 1, 2, 1, "prime-rl-rollouts")).toHaveLength(1);
    }
  });

  it("leave to the full path what the projection does not cover, with the same result", async () => {
    // A bad token id: the full path's error, named by line and field.
    const bad = table({ rows: 80, seed: 7, groupRows: 40, badRow: 60 });
    const { projected, full } = await bothIndexes(bad);
    expect(projected.errors.length).toBeGreaterThan(0);
    expect(projected.errors).toEqual(full.errors);
    expect(projected.rows).toEqual(full.rows);
    expect(
      await summarizeParquetRows(await open(bad), 40, 80, 40, "prime-rl-rollouts"),
    ).toBeUndefined();
    // A loss mask column: the reader maps it, so its rows are read whole.
    const masked = table({ rows: 40, seed: 8, groupRows: 20, extra: ["loss_mask"] });
    expect(
      await summarizeParquetRows(await open(masked), 20, 40, 20, "prime-rl-rollouts"),
    ).toBeUndefined();
    const both = await bothIndexes(masked);
    expect(both.projected.rows).toEqual(both.full.rows);
    // A response without a prompt: the full path's invariant error.
    const noPrompt = table({ rows: 40, seed: 10, groupRows: 20, noPrompt: 30 });
    const third = await bothIndexes(noPrompt);
    expect(third.projected.errors).toHaveLength(1);
    expect(third.projected.errors).toEqual(third.full.errors);
    expect(third.projected.rows).toEqual(third.full.rows);
    // Another format fixed by the first rows.
    expect(await summarizeParquetRows(await open(bad), 0, 40, 0, "atropos")).toBeUndefined();
  });
});

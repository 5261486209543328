import { parquetReadObjects, parquetSchema, type SchemaElement } from "hyparquet";
import { getTreePath } from "hyparquet/src/schema.js";
import { parquetWriteBuffer } from "hyparquet-writer";
import { ByteWriter } from "hyparquet-writer/src/bytewriter.js";
import { writePageHeader } from "hyparquet-writer/src/datapage.js";
import { writeRleBitPackedHybrid } from "hyparquet-writer/src/encoding.js";
import { describe, expect, it } from "vitest";
import { openParquet, plainValue, readParquetRecords } from "./parquet";
import { isNumberListPath, readNumberListChunk, readNumberListColumn } from "./parquetLists";

const list = (
  name: string,
  type: SchemaElement["type"],
  options: { required?: boolean; elementRequired?: boolean } = {},
): SchemaElement[] => [
  {
    name,
    repetition_type: options.required ? "REQUIRED" : "OPTIONAL",
    num_children: 1,
    converted_type: "LIST",
  },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type, repetition_type: options.elementRequired ? "REQUIRED" : "OPTIONAL" },
];

/** Rows of every column read by hyparquet alone (the reference), as plain values. */
async function reference(buffer: ArrayBuffer) {
  const rows = await parquetReadObjects({ file: buffer });
  return rows.map((r) => plainValue(r));
}

/** Every number-list chunk of every row group decoded by readNumberListChunk, as rows. */
async function fast(buffer: ArrayBuffer) {
  const parquet = await openParquet(buffer);
  const tree = parquetSchema(parquet.metadata);
  const out: Record<string, unknown>[] = [];
  for (const group of parquet.metadata.row_groups) {
    const rows: Record<string, unknown>[] = Array.from(
      { length: Number(group.num_rows) },
      () => ({}),
    );
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      if (!meta) throw new Error("no column metadata");
      const path = getTreePath(tree, meta.path_in_schema);
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      const bytes = new Uint8Array(buffer, start, Number(meta.total_compressed_size));
      const values = readNumberListChunk(bytes, path, meta);
      if (!values) throw new Error(`${meta.path_in_schema.join(".")} not read`);
      for (const [r, v] of values.entries())
        (rows[r] as Record<string, unknown>)[meta.path_in_schema[0] as string] = v;
    }
    out.push(...rows);
  }
  return out;
}

describe("readNumberListChunk", () => {
  it("reads what hyparquet reads: null and empty lists, null elements, ints, floats, doubles, int64", async () => {
    const rows = 300;
    const ids = Array.from({ length: rows }, (_, r) =>
      r % 17 === 3
        ? null
        : r % 11 === 5
          ? []
          : Array.from({ length: (r * 37) % 90 }, (_, k) => (r * 31 + k * 7) % 151643),
    );
    const logprobs = ids.map((l, r) =>
      l === null ? null : l.map((_, k) => (k % 13 === 7 ? null : -((r + k) % 64) / 16)),
    );
    const doubles = ids.map((l) => (l === null ? [] : l.map((v) => v / 3)));
    const big = ids.map((l, r) => (l === null ? null : [BigInt(r), 2n ** 60n + BigInt(r)]));
    const buffer = parquetWriteBuffer({
      schema: [
        { name: "root", num_children: 4 },
        ...list("ids", "INT32"),
        ...list("lp", "FLOAT"),
        ...list("d", "DOUBLE", { required: true, elementRequired: true }),
        ...list("big", "INT64"),
      ],
      columnData: [
        { name: "ids", data: ids },
        { name: "lp", data: logprobs },
        { name: "d", data: doubles },
        { name: "big", data: big },
      ],
      rowGroupSize: 128,
      pageSize: 2048, // many pages per chunk, lists running across page ends
    });
    const expected = await reference(buffer);
    expect(await fast(buffer)).toEqual(expected);
    expect((expected[3] as Record<string, unknown>).ids).toBeNull();
    expect((expected[5] as Record<string, unknown>).ids).toEqual([]);
    expect((expected[1] as Record<string, unknown>).big).toEqual([1, "1152921504606846977"]);
  });

  it("reads dictionary-encoded pages", async () => {
    const data = Array.from({ length: 200 }, (_, r) =>
      Array.from({ length: 50 }, (_, k) => (r + k) % 4),
    );
    const buffer = parquetWriteBuffer({
      schema: [{ name: "root", num_children: 1 }, ...list("mask", "INT32")],
      columnData: [{ name: "mask", data }],
    });
    const parquet = await openParquet(buffer);
    expect(
      parquet.metadata.row_groups[0]?.columns[0]?.meta_data?.dictionary_page_offset,
    ).toBeDefined();
    expect(await fast(buffer)).toEqual(await reference(buffer));
  });

  it("reads version 1 data pages (pyarrow's default), levels inside the page", async () => {
    // One chunk: two rows [5, null, 7] and [] in a v1 page, uncompressed, PLAIN.
    const rep = [0, 1, 1, 0];
    const def = [3, 2, 3, 1];
    const body = new ByteWriter();
    for (const levels of [rep, def]) {
      const part = new ByteWriter();
      writeRleBitPackedHybrid(part, levels, levels === rep ? 1 : 2);
      body.appendUint32(part.offset);
      body.appendBytes(part.getBytes());
    }
    body.appendInt32(5);
    body.appendInt32(7);
    const bytes = body.getBytes();
    const chunk = new ByteWriter();
    writePageHeader(chunk, {
      type: "DATA_PAGE",
      uncompressed_page_size: bytes.length,
      compressed_page_size: bytes.length,
      data_page_header: {
        num_values: 4,
        encoding: "PLAIN",
        definition_level_encoding: "RLE",
        repetition_level_encoding: "RLE",
      },
    });
    chunk.appendBytes(bytes);
    const file = parquetWriteBuffer({
      schema: [{ name: "root", num_children: 1 }, ...list("ids", "INT32")],
      columnData: [{ name: "ids", data: [[1]] }],
    });
    const path = getTreePath(parquetSchema((await openParquet(file)).metadata), [
      "ids",
      "list",
      "element",
    ]);
    expect(readNumberListChunk(chunk.getBytes(), path, { codec: "UNCOMPRESSED" })).toEqual([
      [5, null, 7],
      [],
    ]);
  });

  it("leaves other columns to hyparquet", async () => {
    const buffer = parquetWriteBuffer({
      schema: [
        { name: "root", num_children: 2 },
        ...list("words", "BYTE_ARRAY"),
        { name: "n", type: "INT32", repetition_type: "OPTIONAL" },
      ],
      columnData: [
        { name: "words", data: [["a"]] },
        { name: "n", data: [1] },
      ],
    });
    const tree = parquetSchema((await openParquet(buffer)).metadata);
    expect(isNumberListPath(getTreePath(tree, ["words", "list", "element"]))).toBe(false);
    expect(isNumberListPath(getTreePath(tree, ["n"]))).toBe(false);
  });

  it("readParquetRecords gives the same records through it as through hyparquet alone", async () => {
    const rows = 200;
    const buffer = parquetWriteBuffer({
      schema: [
        { name: "root", num_children: 3 },
        ...list("input_tokens", "INT32"),
        ...list("output_tokens", "INT32"),
        { name: "rewards", type: "FLOAT", repetition_type: "OPTIONAL" },
      ],
      columnData: [
        { name: "input_tokens", data: Array.from({ length: rows }, (_, r) => [r, r + 1]) },
        { name: "output_tokens", data: Array.from({ length: rows }, (_, r) => [r + 2]) },
        { name: "rewards", data: Array.from({ length: rows }, (_, r) => r / 2) },
      ],
      rowGroupSize: 150,
    });
    const parquet = await openParquet(buffer);
    // 100 rows inside the first group (the fast reader) vs the same rows 20 at a time (hyparquet).
    const bulk = await readParquetRecords(parquet, 10, 110);
    const small = [];
    for (let s = 10; s < 110; s += 20)
      small.push(...(await readParquetRecords(parquet, s, s + 20)));
    expect(bulk).toEqual(small);
    expect(bulk[0]).toMatchObject({ tokens: [10, 11, 12], response_length: 1, reward: 5 });
  });
});

describe("readNumberListColumn", () => {
  /** The one list column `name` of a table, as flat columns with and without values. */
  async function columnOf(data: unknown[], type: SchemaElement["type"]) {
    const buffer = parquetWriteBuffer({
      schema: [{ name: "root", num_children: 1 }, ...list("ids", type)],
      columnData: [{ name: "ids", data: data as never }],
    });
    const parquet = await openParquet(buffer);
    const meta = parquet.metadata.row_groups[0]?.columns[0]?.meta_data;
    if (!meta) throw new Error("no column metadata");
    const path = getTreePath(parquetSchema(parquet.metadata), meta.path_in_schema);
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const bytes = new Uint8Array(buffer, start, Number(meta.total_compressed_size));
    return {
      encodings: meta.encodings,
      values: readNumberListColumn(bytes, path, meta, { values: true }),
      lengths: readNumberListColumn(bytes, path, meta, { values: false }),
    };
  }

  it("cuts rows like readNumberListChunk and says whether every entry is a token id", async () => {
    // Repeated values: the writer picks a dictionary, whose entries are checked once.
    const rows = [[1, 2, 3], null, [], [4, null, 4], [2, 2, 2, 2]];
    const many = Array.from({ length: 50 }, (_, k) => rows[k % rows.length] ?? null);
    const { encodings, values, lengths } = await columnOf(many, "INT32");
    expect(encodings.some((e) => e.includes("DICTIONARY"))).toBe(true);
    for (const column of [values, lengths]) {
      expect(column?.rows).toBe(50);
      expect(Array.from(column?.starts ?? []).slice(0, 6)).toEqual([0, 3, 3, 3, 6, 10]);
      expect(Array.from(column?.nullList ?? []).slice(0, 5)).toEqual([0, 1, 0, 0, 0]);
      expect(Array.from(column?.nullEntries ?? []).slice(0, 5)).toEqual([0, 0, 0, 1, 0]);
      expect(column?.tokenIds).toBe(true);
    }
    expect(Array.from(values?.values ?? []).slice(0, 7)).toEqual([1, 2, 3, 4, Number.NaN, 4, 2]);
    expect(lengths?.values).toBeUndefined();
    // One negative id in the dictionary, or in plain pages of distinct values, is found.
    const negative = await columnOf([...many, [-1]], "INT32");
    expect(negative.lengths?.tokenIds).toBe(false);
    const distinct = Array.from({ length: 40 }, (_, k) => [k * 1000 + 1, k * 1000 + 2]);
    expect((await columnOf(distinct, "INT32")).lengths?.tokenIds).toBe(true);
    expect((await columnOf([...distinct, [-5]], "INT32")).lengths?.tokenIds).toBe(false);
    expect((await columnOf([[0.5], [1]], "FLOAT")).lengths?.tokenIds).toBe(false);
  });
});

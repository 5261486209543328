import { type AsyncBuffer, parquetReadObjects, type SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { openParquet, plainValue, readParquetRecords } from "./parquet";
import { readHeadRows, wholePagesLength } from "./parquetHead";

const list = (name: string, type: SchemaElement["type"]): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", type, repetition_type: "OPTIONAL" },
];

/** An AsyncBuffer over bytes in memory that counts the bytes read. */
function counted(buffer: ArrayBuffer): AsyncBuffer & { bytes: number } {
  const file = {
    byteLength: buffer.byteLength,
    bytes: 0,
    slice(start: number, end?: number) {
      file.bytes += (end ?? buffer.byteLength) - start;
      return Promise.resolve(buffer.slice(start, end));
    },
  };
  return file;
}

/** One big row group (pyarrow's default layout), many pages, no page index. */
function bigGroupTable(
  extra: { schema: SchemaElement[]; data: unknown[] } | undefined = undefined,
) {
  const rows = 3000;
  return parquetWriteBuffer({
    schema: [
      { name: "root", num_children: extra ? 5 : 4 },
      ...list("input_tokens", "INT32"),
      ...list("output_tokens", "INT32"),
      { name: "rewards", type: "FLOAT", repetition_type: "OPTIONAL" },
      { name: "note", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
      ...(extra?.schema ?? []),
    ],
    columnData: [
      {
        name: "input_tokens",
        data: Array.from({ length: rows }, (_, r) =>
          Array.from({ length: 600 }, (_, k) => (r * 40503 + k * 7919) % 151643),
        ),
      },
      {
        name: "output_tokens",
        data: Array.from({ length: rows }, (_, r) =>
          Array.from({ length: 200 + (r % 50) }, (_, k) => (r * 7 + k) % 9000),
        ),
      },
      { name: "rewards", data: Array.from({ length: rows }, (_, r) => (r % 4) / 4) },
      {
        name: "note",
        data: Array.from({ length: rows }, (_, r) => (r % 3 === 0 ? null : `row ${r}`)),
      },
      ...(extra ? [{ name: extra.schema[0]?.name ?? "", data: extra.data }] : []),
    ],
    rowGroupSize: rows,
    pageSize: 16 * 1024,
  });
}

describe("the first rows of a Parquet file", () => {
  it("come from the first pages of a big row group, equal to hyparquet's rows", async () => {
    const buffer = bigGroupTable();
    const file = counted(buffer);
    const parquet = await openParquet(file);
    expect(parquet.rowGroups).toEqual([{ start: 0, rows: 3000 }]);
    file.bytes = 0;
    const head = await readHeadRows(file, parquet.metadata, 16);
    // A few prefixes of each chunk, not the 4 whole chunks.
    expect(buffer.byteLength).toBeGreaterThan(5_000_000);
    expect(file.bytes).toBeLessThan(buffer.byteLength / 10);
    const expected = (await parquetReadObjects({ file: buffer, rowEnd: 16 })).map(plainValue);
    expect(head?.map(plainValue)).toEqual(expected);
    file.bytes = 0;
    expect(await readParquetRecords(parquet, 0, 16)).toHaveLength(16);
    expect(file.bytes).toBeLessThan(buffer.byteLength / 10);
    expect((await readParquetRecords(parquet, 0, 16))[5]).toMatchObject({
      reward: 0.25,
      note: "row 5",
    });
  });

  it("leave a table with nested columns to hyparquet, which still reads them right", async () => {
    const buffer = bigGroupTable({
      schema: [
        { name: "meta", repetition_type: "OPTIONAL", num_children: 1 },
        { name: "step", type: "INT32", repetition_type: "OPTIONAL" },
      ],
      data: Array.from({ length: 3000 }, (_, r) => ({ step: r })),
    });
    const parquet = await openParquet(buffer);
    expect(await readHeadRows(buffer, parquet.metadata, 16)).toBeUndefined();
    const records = await readParquetRecords(parquet, 0, 16);
    expect(records[5]).toMatchObject({ meta: { step: 5 } });
  });

  it("cuts a chunk's prefix at its last whole page", async () => {
    const buffer = bigGroupTable();
    const parquet = await openParquet(buffer);
    const meta = parquet.metadata.row_groups[0]?.columns[0]?.meta_data;
    if (!meta) throw new Error("no metadata");
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const total = Number(meta.total_compressed_size);
    const chunk = new Uint8Array(buffer, start, total);
    expect(wholePagesLength(chunk)).toBe(total);
    const cut = wholePagesLength(chunk.subarray(0, Math.floor(total / 2)));
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(total / 2);
    expect(wholePagesLength(chunk.subarray(0, cut + 3))).toBe(cut);
  });
});

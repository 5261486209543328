import { readFileSync } from "node:fs";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { fixtureLines, fixturePath } from "../../test/fixtureFiles";
import { primeRolloutParquet } from "../../test/parquetFixtures";
import { openParquet } from "../formats/parquet";
import { createFileIndex } from "./fileIndexer";
import { parquetRecordSource } from "./parquetSource";
import {
  indexRecords,
  jsonDocumentRecords,
  memoryRecordSource,
  needsColumnMapping,
} from "./recordIndexer";

describe("indexRecords", () => {
  it("summarizes one row group at a time, rows numbered like lines", async () => {
    const buffer = primeRolloutParquet(2);
    const parquet = await openParquet({
      byteLength: buffer.byteLength,
      slice: (s, e) => buffer.slice(s, e),
    });
    const index = createFileIndex("r.parquet");
    const deltas = [];
    for await (const delta of indexRecords(parquetRecordSource(parquet), index)) deltas.push(delta);
    expect(deltas.map((d) => [d.lines, d.rows.length])).toEqual([
      [2, 2],
      [1, 1],
    ]);
    expect(deltas[1]?.bytes).toBeGreaterThan(deltas[0]?.bytes ?? 0);
    expect(index.format).toBe("prime-rl-rollouts");
    expect(
      index.rows.map((r) => [r.index, r.line, r.reward, r.totalTokens, r.trainableTokens]),
    ).toEqual([
      [0, 1, 1, 17, 4],
      [1, 2, 0, 17, 4],
      [2, 3, 0, 17, 4],
    ]);
  });
});

describe("whole-file JSON documents", () => {
  const doc = JSON.parse(fixtureLines("reference-atif.jsonl")[0] ?? "{}");

  it("a pretty-printed ATIF trajectory.json is one record; an array one per element", async () => {
    const pretty = JSON.stringify(doc, null, 2);
    expect(pretty.split("\n").length).toBeGreaterThan(50);
    const records = jsonDocumentRecords(pretty);
    expect(records).toEqual([doc]);
    const index = createFileIndex("trajectory.json");
    for await (const _ of indexRecords(memoryRecordSource(records ?? [], pretty.length), index));
    expect(index.format).toBe("atif");
    expect(index.rows.map((r) => [r.id, r.line, r.totalTokens])).toEqual([["ep42", 1, 33]]);
    expect(jsonDocumentRecords(JSON.stringify([doc, doc]))).toHaveLength(2);
  });

  it('an export\'s one-key wrapper ({"data": [...]}) is its list of records; more keys, one record', () => {
    const rows = [
      { prompt: "p1", completion: "c1" },
      { prompt: "p2", completion: "c2" },
    ];
    expect(jsonDocumentRecords(JSON.stringify({ data: rows }, null, 2))).toEqual(rows);
    const withMeta = { data: rows, version: 2 };
    expect(jsonDocumentRecords(JSON.stringify(withMeta))).toEqual([withMeta]);
    expect(jsonDocumentRecords(JSON.stringify({ data: [1, 2] }))).toEqual([{ data: [1, 2] }]);
    // slime's dump keeps its rollout_id beside the samples: one record, its reader's.
    const slime = { rollout_id: 3, samples: [{ tokens: [1, 2], response_length: 1 }] };
    expect(jsonDocumentRecords(JSON.stringify(slime))).toEqual([slime]);
  });

  it("a W&B table file ({columns, data}) is one record per row, its cells by column", () => {
    const columns = ["step", "prompt", "completion", "accuracy_reward", "advantage"];
    const data = [
      ["10", "2+2?", "4", 1, 0.5],
      ["10", "2+2?", "5", 0, -0.5],
    ];
    const rows = [
      { step: "10", prompt: "2+2?", completion: "4", accuracy_reward: 1, advantage: 0.5 },
      { step: "10", prompt: "2+2?", completion: "5", accuracy_reward: 0, advantage: -0.5 },
    ];
    expect(jsonDocumentRecords(JSON.stringify({ columns, data }))).toEqual(rows);
    // An artifact's copy adds its type, sizes and column types.
    const artifact = { _type: "table", columns, data, ncols: 5, nrows: 2, column_types: {} };
    expect(jsonDocumentRecords(JSON.stringify({ ...artifact, log_mode: "IMMUTABLE" }))).toEqual(
      rows,
    );
    // Not a table: a ragged row, a repeated column, a key no table file has. Read as one record.
    for (const odd of [
      { columns, data: [data[0], ["10", "2+2?"]] },
      { columns: ["a", "a"], data: [[1, 2]] },
      { columns, data, source: "mine" },
    ]) {
      expect(jsonDocumentRecords(JSON.stringify(odd))).toEqual([odd]);
    }
  });

  it("TRL's completions table as W&B writes it opens as text rows with their columns", async () => {
    const path = "dumps/wandb/media/table/completions_10_5f1c2a9e8d7b6a4c3f21.table.json";
    const text = readFileSync(fixturePath(path), "utf8");
    const records = jsonDocumentRecords(text) ?? [];
    const index = createFileIndex("completions_10_5f1c2a9e8d7b6a4c3f21.table.json");
    for await (const _ of indexRecords(memoryRecordSource(records, text.length), index));
    expect(index.errors).toEqual([]);
    expect(index.format).toBe("text-table");
    expect(index.rows).toHaveLength(4);
    expect(index.rows.map((r) => r.reward)).toEqual([undefined, undefined, undefined, undefined]);
    const last = records[3] as Record<string, number>;
    expect(last).toMatchObject({ completion: "Cusco", accuracy_reward: 0 });
    expect(last.advantage).toBeCloseTo(-Math.SQRT1_2, 4);
    expect(Number.isNaN(last.format_reward)).toBe(true);
  });

  it("JSON lines are not one document: they are read line by line", () => {
    expect(jsonDocumentRecords(fixtureLines("reference-atif.jsonl").join("\n"))).toBeUndefined();
    expect(jsonDocumentRecords("42")).toBeUndefined();
  });
});

describe("tables no known producer wrote", () => {
  const table = [
    { prompt_ids: [1, 2], completion_ids: [3, 4], score: 0.5, note: "a" },
    { prompt_ids: [5], completion_ids: [6], score: 1, note: "b" },
  ];

  it("need a column mapping; a known format's records do not", async () => {
    expect(await needsColumnMapping(memoryRecordSource(table, 100))).toBe(true);
    const known = [{ tokens: [1, 2, 3], response_length: 1 }];
    expect(await needsColumnMapping(memoryRecordSource(known, 100))).toBe(false);
    expect(await needsColumnMapping(memoryRecordSource([], 0))).toBe(false);
    expect(memoryRecordSource(table, 100).columns).toEqual([
      "prompt_ids",
      "completion_ids",
      "score",
      "note",
    ]);
  });

  it("a JSON table read through a mapping indexes like slime samples", async () => {
    const source = memoryRecordSource(table, 100, {
      layout: "split",
      promptTokenIds: "prompt_ids",
      responseTokenIds: "completion_ids",
      reward: "score",
    });
    expect(await needsColumnMapping(source)).toBe(false);
    const index = createFileIndex("t.json");
    for await (const _ of indexRecords(source, index));
    expect(index.errors).toEqual([]);
    expect(index.format).toBe("slime");
    expect(index.rows.map((r) => [r.line, r.reward, r.totalTokens, r.trainableTokens])).toEqual([
      [1, 0.5, 4, 2],
      [2, 1, 2, 1],
    ]);
  });

  it("a Parquet table of unknown columns needs a mapping, and reads through one", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "prompt_ids", data: [[1, 2]] },
        { name: "completion_ids", data: [[3]] },
      ],
    });
    const plain = await openParquet(buffer);
    expect(await needsColumnMapping(parquetRecordSource(plain))).toBe(true);
    const mapped = await openParquet(buffer, {
      mapping: {
        layout: "split",
        promptTokenIds: "prompt_ids",
        responseTokenIds: "completion_ids",
      },
    });
    const source = parquetRecordSource(mapped);
    expect(await needsColumnMapping(source)).toBe(false);
    // Records come as stored, with the mapping their reader applies: the index reads slime samples.
    expect(await source.read(0, 1)).toEqual([{ prompt_ids: [1, 2], completion_ids: [3] }]);
    expect(source.mapping).toEqual(mapped.mapping);
    const index = createFileIndex("t.parquet");
    for await (const _ of indexRecords(source, index));
    expect(index.format).toBe("slime");
    expect(index.rows.map((r) => r.totalTokens)).toEqual([3]);
  });
});

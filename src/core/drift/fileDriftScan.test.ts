import { describe, expect, it } from "vitest";
import { primeRolloutParquet } from "../../test/parquetFixtures";
import { generateLine } from "../../test/rolloutFileGenerator";
import { createFileIndex, finishFileIndex, indexChunk } from "../files/fileIndexer";
import { parquetRecordSource } from "../files/parquetSource";
import { indexRecords } from "../files/recordIndexer";
import { openParquet } from "../formats/parquet";
import { createFileDriftScan, scanDriftLine, scanDriftRecord } from "./fileDriftScan";
import type { DriftResult } from "./types";

const decoder = new TextDecoder();

/** A fake check: a trajectory drifts at its first model token when its id ends in an odd digit. */
function fakeCheck(t: { id: string; segments: readonly { tokenIds: readonly number[] }[] }) {
  const at = t.segments[0]?.tokenIds.length ?? 0;
  const isOdd = Number(t.id.at(-1)) % 2 === 1;
  const result: DriftResult = {
    mode: "roundtrip",
    lenTito: 0,
    lenRetok: 0,
    textEqual: true,
    firstDivergenceIndex: isOdd ? at : undefined,
    regions: [],
    trainableTokensAffected: 0,
  };
  return result;
}

describe("scanDriftLine", () => {
  it("numbers rows as the file indexer does, skipping blank and bad lines", () => {
    const lines = [
      generateLine(0, { tokens: 40 }),
      "",
      "{not json",
      generateLine(1, { tokens: 40 }),
      '{"format":"rollout-lens/v1"}',
      generateLine(2, { tokens: 40 }),
      generateLine(3, { tokens: 40 }),
    ];
    const text = `${lines.join("\n")}\r\n`;
    const index = createFileIndex("f.jsonl");
    indexChunk(index, new TextEncoder().encode(text), (b) => decoder.decode(b));
    finishFileIndex(index, (b) => decoder.decode(b));

    const scan = createFileDriftScan();
    text.split("\n").forEach((line, k) => {
      scanDriftLine(scan, line, k + 1, fakeCheck, "f.jsonl");
    });
    expect(scan.rows).toHaveLength(index.rows.length);
    expect(scan.badLines).toBe(2);
    expect(index.errors).toHaveLength(2);
    expect(scan.format).toBe("rollout-lens/v1");
    const drifted = scan.rows.map((r) => r?.firstDivergenceIndex !== undefined);
    expect(drifted).toEqual(index.rows.map((r) => Number(r.id.at(-1)) % 2 === 1));
  });

  it("keeps an undefined row, counted by reason, where the check cannot run", () => {
    const scan = createFileDriftScan();
    scanDriftLine(scan, generateLine(0, { tokens: 20 }), 1, () => ({ unchecked: "no input" }));
    expect(scan.rows).toEqual([undefined]);
    expect(scan.unchecked).toEqual({ "no input": 1 });
    expect(scan.lines).toBe(1);
  });
});

describe("scanDriftRecord", () => {
  it("numbers Parquet rows as the record indexer does", async () => {
    const buffer = primeRolloutParquet(2);
    const parquet = await openParquet({
      byteLength: buffer.byteLength,
      slice: (s, e) => buffer.slice(s, e),
    });
    const source = parquetRecordSource(parquet);
    const index = createFileIndex("r.parquet");
    for await (const _ of indexRecords(source, index));
    const scan = createFileDriftScan();
    const records = await source.read(0, source.rows);
    for (const [k, value] of records.entries()) {
      scanDriftRecord(scan, { ...(value as object) }, k + 1, fakeCheck);
    }
    expect(scan.rows).toHaveLength(index.rows.length);
    expect(scan.format).toBe(index.format);
    expect(scan.lines).toBe(3);
  });
});

import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { exportLine } from "../core/files/exportRows";
import { createFileIndex } from "../core/files/fileIndexer";
import { indexRecords, type RecordSource } from "../core/files/recordIndexer";
import { splitRecordRanges } from "../core/files/scanRanges";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { fakeScanWorkerPort } from "../test/fakeScanWorker";
import { FAKE_IM_END, FAKE_WORD_BASE } from "../test/fakeTokenizer";
import { modelSegment, promptSegment, trajectory } from "../test/trajectoryBuilders";
import { byteSource, recordSourceOf } from "./recordFiles";
import type { FileRanges, RolloutFileSource } from "./rolloutFileProtocol";
import { createScanClient } from "./scanClient";
import { scanDriftWithPool } from "./scanPool";

// "Check drift" on a Parquet table or a JSON document: the file worker cuts its records into
// ranges of whole record groups, and each scan worker opens the same records and checks its range.

const ascii = (text: string) => [...new TextEncoder().encode(text)];
const PROMPT = ascii("Hi");
const DRIFTED = [...ascii("Hello"), FAKE_IM_END];
const CLEAN = [FAKE_WORD_BASE, FAKE_IM_END];
const isDrifted = (k: number) => k % 3 === 0;

/** Indexes the file as the rollout-file worker does and cuts its ranges. */
async function indexed(source: RolloutFileSource, targetBytes: number) {
  const bytes = byteSource(source);
  const records = (await recordSourceOf(
    bytes,
    source.name,
    await bytes.size(),
    source.mapping,
  )) as RecordSource;
  const index = createFileIndex(source.name);
  for await (const _ of indexRecords(records, index));
  const file: FileRanges = {
    ranges: splitRecordRanges(records.groups, index.rows, targetBytes),
    format: index.format,
    totalBytes: records.groups.reduce((sum, g) => sum + g.bytes, 0),
  };
  return { file, index };
}

const clients = (n: number) =>
  Array.from({ length: n }, () => createScanClient({ port: fakeScanWorkerPort() }));

describe("file-wide drift of record files", () => {
  it("a mapped Parquet table: every row checked on a pool, drifted rows where they are", async () => {
    const rows = 300;
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "prompt_ids", data: Array.from({ length: rows }, () => PROMPT) },
        {
          name: "completion_ids",
          data: Array.from({ length: rows }, (_, k) => (isDrifted(k) ? DRIFTED : CLEAN)),
        },
      ],
      rowGroupSize: 40,
    });
    const mapping: ColumnMapping = {
      layout: "split",
      promptTokenIds: "prompt_ids",
      responseTokenIds: "completion_ids",
    };
    const source: RolloutFileSource = {
      kind: "blob",
      name: "t.parquet",
      blob: new Blob([buffer]),
      mapping,
    };
    const { file, index } = await indexed(source, 1);
    expect(index.rows).toHaveLength(rows);
    expect(file.ranges.length).toBeGreaterThan(5);
    let last = { bytes: 0, totalBytes: 0 };
    const scan = await scanDriftWithPool(
      clients(3),
      { tokenizer: "fake", source, mode: "roundtrip", file },
      (p) => (last = p),
    );
    expect(scan.rows).toHaveLength(rows);
    expect(scan.badLines).toBe(0);
    const drifted = scan.rows.flatMap((r, k) => ((r?.regions ?? 0) > 0 ? [k] : []));
    expect(drifted).toEqual(Array.from({ length: rows }, (_, k) => k).filter(isDrifted));
    expect(last).toMatchObject({ bytes: file.totalBytes, totalBytes: file.totalBytes });
  });

  it("a JSON document (an array of records) checks like the same records as JSON lines", async () => {
    const records = Array.from({ length: 50 }, (_, k) =>
      JSON.parse(
        exportLine(
          trajectory([promptSegment(PROMPT), modelSegment(isDrifted(k) ? DRIFTED : CLEAN, 1)], {
            id: `t${k}`,
          }),
          "rollout-lens/v1",
        ),
      ),
    );
    const json: RolloutFileSource = {
      kind: "blob",
      name: "t.json",
      blob: new Blob([JSON.stringify(records, null, 2)]),
    };
    const { file } = await indexed(json, 1024);
    const scan = await scanDriftWithPool(
      clients(2),
      { tokenizer: "fake", source: json, mode: "roundtrip", file },
      () => {},
    );
    const lines = records.map((r) => JSON.stringify(r)).join("\n");
    const jsonl: RolloutFileSource = { kind: "blob", name: "t.jsonl", blob: new Blob([lines]) };
    const single = await clients(1)[0]?.scan("fake", jsonl, "roundtrip", () => {});
    expect(scan.rows).toEqual(single?.rows);
    expect(scan.rows.filter((r) => (r?.regions ?? 0) > 0)).toHaveLength(17);
  });
});

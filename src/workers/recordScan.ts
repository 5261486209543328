import {
  type FileDriftScan,
  scanDriftRecord,
  startFileDriftScan,
} from "../core/drift/fileDriftScan";
import type { RecordSource } from "../core/files/recordIndexer";
import type { ScanRange } from "../core/files/scanRanges";
import type { Tokenizer } from "../core/tokenizer/types";
import { byteSource, recordSourceOf } from "./recordFiles";
import type { RolloutFileSource } from "./rolloutFileProtocol";
import type { DriftRangeJob } from "./scanProtocol";

/** Records checked between progress messages (and looks for a cancel). */
const RECORD_CHUNK = 256;

/** The drift service's scan of one range of a file (its bytes or its records). */
export type RangeScan = (
  id: number,
  job: DriftRangeJob,
  range: ScanRange,
  onChunk: (state: FileDriftScan, bytesRead: number) => void,
) => Promise<FileDriftScan>;

/**
 * The drift service's range scan, `scanLines` for ranges of JSON lines, and for a range of records
 * (a Parquet table, a JSON document; `range.records`) a scan with the service's tokenizers and
 * cancelled requests. The file is opened here as the file worker opens it (workers/recordFiles.ts),
 * through the source's column mapping, once for all its ranges.
 */
export function withRecordRanges(
  scanLines: RangeScan,
  tokenizerOf: (name: string) => Promise<Tokenizer>,
  cancelled: Set<number>,
): RangeScan {
  /**
   * Checks the records of a range of a Parquet table or JSON document (`range.records` of them from
   * record `firstLine - 1`), opened here as the file worker opens it, a record group at a time.
   */
  async function scanRecords(
    id: number,
    job: DriftRangeJob,
    range: ScanRange,
    onChunk: (state: FileDriftScan, bytesRead: number) => void,
  ): Promise<FileDriftScan> {
    const { source, mode, format, chosen } = job;
    const records = await openRecords(source);
    // Records come as stored: the scan reads them through the table's mapping, as indexing does.
    const { state, checkOne } = startFileDriftScan(
      await tokenizerOf(job.tokenizer),
      mode,
      format,
      records.mapping,
      chosen,
    );
    await forEachRecord(
      records,
      range,
      (value, lineNo) => scanDriftRecord(state, value, lineNo, checkOne, source.name),
      (bytes) => onChunk(state, bytes),
      () => {
        if (cancelled.delete(id)) throw new Error("drift scan cancelled");
      },
    );
    cancelled.delete(id);
    return state;
  }

  return (id, job, range, onChunk) =>
    (range.records === undefined ? scanLines : scanRecords)(id, job, range, onChunk);
}

// The record file last opened (a scan's ranges come one after another from the same file).
let openedRecords: { key: string; records: Promise<RecordSource> } | undefined;

/**
 * The record file of `source` (a Parquet table, a JSON document), opened as the file worker opens
 * it, with its column mapping.
 */
export function openRecords(source: RolloutFileSource): Promise<RecordSource> {
  const where = source.kind === "http" ? source.infoUrl : `${source.blob.size}`;
  const companions = [source.trainDumps?.map((t) => t.name), source.rolloutDump?.name];
  const key = JSON.stringify([source.kind, source.name, where, source.mapping, companions]);
  if (openedRecords?.key !== key) {
    const bytes = byteSource(source);
    const records = bytes.size().then(async (size) => {
      const opened = await recordSourceOf(bytes, source.name, size, source.mapping, source);
      if (!opened) throw new Error(`${source.name} is not a Parquet table or a JSON document`);
      return opened;
    });
    openedRecords = { key, records };
  }
  return openedRecords.records;
}

/**
 * Feeds the records of a range of a Parquet table or JSON document (`range.records` of them from
 * record `firstLine - 1`, record r numbered line r + 1) to `onRecord`, a record group at a time as
 * indexing reads them; `onChunk` gets the bytes they stand for so far, and `checkCancel` (called
 * every RECORD_CHUNK records) throws to stop.
 */
export async function forEachRecord(
  records: RecordSource,
  range: ScanRange,
  onRecord: (value: unknown, lineNo: number) => void,
  onChunk: (bytesRead: number) => void,
  checkCancel: () => void,
): Promise<void> {
  const first = range.firstLine - 1;
  const count = range.records ?? 0;
  const end = first + count;
  const progress = (at: number) =>
    onChunk(Math.round(((range.end - range.start) * (at - first)) / count));
  for (let at = first; at < end; ) {
    // The record group holding `at`, read whole (as indexing reads it), cut at the range's end.
    const group = records.groups.find((g) => g.start <= at && at < g.start + g.rows);
    const next = Math.min(end, group ? group.start + group.rows : end);
    const values = await records.read(at, next);
    for (const [k, value] of values.entries()) {
      if (k % RECORD_CHUNK === 0) {
        checkCancel();
        if (k > 0) progress(at + k);
      }
      onRecord(value, at + k + 1);
    }
    at = next;
    progress(at);
  }
}

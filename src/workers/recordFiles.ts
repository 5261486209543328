import { sampleFactsOf, withDumpFacts } from "../core/files/dashboardColumns";
import { MAX_RANGE_BYTES } from "../core/files/filesWire";
import { parquetRecordSource } from "../core/files/parquetSource";
import {
  isJsonDocumentName,
  jsonDocumentHeadProblem,
  jsonDocumentRecords,
  MAX_JSON_DOCUMENT_BYTES,
  memoryRecordSource,
  type RecordSource,
  tooBigToReadWhole,
} from "../core/files/recordIndexer";
import {
  binaryFileProblem,
  delimitedTextKind,
  isArtYamlHead,
  isDumpHead,
  isParquetHead,
  SNIFF_BYTES,
} from "../core/files/sniffFile";
import { rolloutDumpSource, torchDumpOf } from "../core/files/torchRecords";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { openParquet } from "../core/formats/parquet";
import { openTorchFile } from "../core/torch/torchFile";
import type { ByteRangeFile } from "../core/torch/zipEntries";
import { fetchRange } from "./rangeFetch";
import type { ByteFileSource, FileCompanions } from "./rolloutFileProtocol";

/*
 * A file's bytes from where it lives (a local File, or the server's byte-range endpoint), and its
 * records when it is a Parquet table or one JSON document. The file worker indexes through these;
 * a scan worker opens the same records to check a range of them.
 */

export interface ByteSource {
  size(): Promise<number>;
  read(start: number, end: number): Promise<Uint8Array>;
}

export function byteSource(source: ByteFileSource): ByteSource {
  if (source.kind === "blob") {
    return {
      size: async () => source.blob.size,
      read: async (start, end) => new Uint8Array(await source.blob.slice(start, end).arrayBuffer()),
    };
  }
  return {
    size: async () => {
      const res = await fetch(source.infoUrl, { cache: "no-store" });
      if (!res.ok) throw new Error(`${source.name}: ${res.status} ${await res.text()}`);
      const body: unknown = await res.json();
      const size = typeof body === "object" && body !== null && "size" in body ? body.size : 0;
      return typeof size === "number" ? size : 0;
    },
    read: (start, end) => fetchRange(source.rangeUrl, source.name, start, end),
  };
}

const decoder = new TextDecoder();

/**
 * Bytes [start, end) in reads of at most MAX_RANGE_BYTES (the server's range limit): a Parquet
 * column chunk or a JSON document can be larger than one range.
 */
export async function readSpan(bytes: ByteSource, start: number, end: number): Promise<Uint8Array> {
  if (end - start <= MAX_RANGE_BYTES) return bytes.read(start, end);
  const out = new Uint8Array(end - start);
  for (let at = start; at < end; at += MAX_RANGE_BYTES) {
    out.set(await bytes.read(at, Math.min(end, at + MAX_RANGE_BYTES)), at - start);
  }
  return out;
}

/** `bytes` (of `size` bytes) as the byte-range file the Parquet and torch readers read. */
function rangeFile(bytes: ByteSource, size: number): ByteRangeFile {
  return {
    byteLength: size,
    slice: async (start: number, end?: number) => {
      const chunk = await readSpan(bytes, start, end ?? size);
      return chunk.buffer.slice(
        chunk.byteOffset,
        chunk.byteOffset + chunk.byteLength,
      ) as ArrayBuffer;
    },
  };
}

/**
 * The train dumps of a rollout dump (listed by the server, or dropped with it), opened by byte
 * range like the dump itself.
 */
function trainDumpFiles(trainDumps: readonly ByteFileSource[]) {
  return Promise.all(
    trainDumps.map(async (train) => {
      const bytes = byteSource(train);
      return { name: train.name, file: rangeFile(bytes, await bytes.size()) };
    }),
  );
}

/** A miles dashboard column table with its rollout dump's reward, status and group. */
async function columnsWithDump(table: RecordSource, dump: ByteFileSource): Promise<RecordSource> {
  const bytes = byteSource(dump);
  const torch = await openTorchFile(rangeFile(bytes, await bytes.size()));
  return withDumpFacts(table, sampleFactsOf(torchDumpOf(torch)));
}

/**
 * The records a whole-file reader makes of the file's text, up to MAX_JSON_DOCUMENT_BYTES, as
 * the CLI reads it; `what` names the file in the error, which names the file too.
 */
async function wholeTextSource(
  bytes: ByteSource,
  name: string,
  size: number,
  what: string,
  records: (text: string) => Promise<unknown[]>,
  mapping: ColumnMapping | undefined,
): Promise<RecordSource> {
  const problem = tooBigToReadWhole(what, size);
  if (problem !== undefined) throw new Error(`${name}: ${problem}`);
  const text = decoder.decode(await readSpan(bytes, 0, size));
  try {
    return memoryRecordSource(await records(text), size, mapping);
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An ART trajectories YAML file's records (the YAML parser loads only for such a file). */
function artYamlSource(
  bytes: ByteSource,
  name: string,
  size: number,
  mapping: ColumnMapping | undefined,
): Promise<RecordSource> {
  const records = async (text: string) =>
    (await import("../core/formats/artYaml")).artYamlRecords(text);
  return wholeTextSource(bytes, name, size, "an ART trajectories YAML file", records, mapping);
}

/** A CSV or TSV file's rows (papaparse loads only for such a file). */
function delimitedSource(
  bytes: ByteSource,
  name: string,
  size: number,
  kind: "csv" | "tsv",
  mapping: ColumnMapping | undefined,
): Promise<RecordSource> {
  const records = async (text: string) =>
    (await import("../core/files/csvRecords")).csvRecords(text, kind);
  return wholeTextSource(bytes, name, size, `a ${kind.toUpperCase()} file`, records, mapping);
}

/**
 * The file's records when it is Parquet (a miles dashboard column table joined to its rollout
 * dump), a torch.save rollout dump (joined to its train dumps) or one JSON document; undefined
 * for JSON lines. The joins are the CLI's (core/files/torchRecords, dashboardColumns).
 */
export async function recordSourceOf(
  bytes: ByteSource,
  name: string,
  size: number,
  mapping: ColumnMapping | undefined,
  companions: FileCompanions = {},
): Promise<RecordSource | undefined> {
  const head = await bytes.read(0, Math.min(size, SNIFF_BYTES));
  const problem = binaryFileProblem(head);
  if (problem) throw new Error(`${name}: ${problem}`);
  const file = rangeFile(bytes, size);
  if (size >= 8 && isParquetHead(head)) {
    const table = parquetRecordSource(await openParquet(file, { mapping }));
    return companions.rolloutDump ? columnsWithDump(table, companions.rolloutDump) : table;
  }
  // A torch.save file (slime/miles `.pt` dumps), read by byte range like Parquet.
  if (isDumpHead(head)) {
    const trains = await trainDumpFiles(companions.trainDumps ?? []);
    return rolloutDumpSource([{ name, file }, ...trains]);
  }
  if (isArtYamlHead(head)) return artYamlSource(bytes, name, size, mapping);
  const table = delimitedTextKind(name);
  if (table !== undefined) return delimitedSource(bytes, name, size, table, mapping);
  if (isJsonDocumentName(name) && size <= MAX_JSON_DOCUMENT_BYTES) {
    const records = jsonDocumentRecords(decoder.decode(await readSpan(bytes, 0, size)));
    return records ? memoryRecordSource(records, size, mapping) : undefined;
  }
  // One JSON document under a JSON-lines name: one clear error, as the CLI gives, not every line bad.
  const document = isJsonDocumentName(name)
    ? undefined
    : jsonDocumentHeadProblem(decoder.decode(head));
  if (document) throw new Error(`${name}: ${document}`);
  return undefined;
}

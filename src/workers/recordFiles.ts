import { MAX_RANGE_BYTES } from "../core/files/filesWire";
import {
  isJsonDocumentName,
  jsonDocumentRecords,
  MAX_JSON_DOCUMENT_BYTES,
  memoryRecordSource,
  parquetRecordSource,
  type RecordSource,
} from "../core/files/recordIndexer";
import { binaryFileProblem, SNIFF_BYTES } from "../core/files/sniffFile";
import { torchDumpOf, torchRecordSource } from "../core/files/torchRecords";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { isParquetHead, openParquet } from "../core/formats/parquet";
import { isZipHead, openTorchFile } from "../core/torch/torchFile";
import { fetchRange } from "./rangeFetch";
import type { RolloutFileSource } from "./rolloutFileProtocol";

/*
 * A file's bytes from where it lives (a local File, or the server's byte-range endpoint), and its
 * records when it is a Parquet table or one JSON document. The file worker indexes through these;
 * a drift worker opens the same records to check a range of them.
 */

export interface ByteSource {
  size(): Promise<number>;
  read(start: number, end: number): Promise<Uint8Array>;
}

export function byteSource(source: RolloutFileSource): ByteSource {
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

/** The file's records when it is Parquet or one JSON document; undefined for JSON lines. */
export async function recordSourceOf(
  bytes: ByteSource,
  name: string,
  size: number,
  mapping: ColumnMapping | undefined,
): Promise<RecordSource | undefined> {
  const head = await bytes.read(0, Math.min(size, SNIFF_BYTES));
  const problem = binaryFileProblem(head);
  if (problem) throw new Error(`${name}: ${problem}`);
  const file = {
    byteLength: size,
    slice: async (start: number, end?: number) => {
      const chunk = await readSpan(bytes, start, end ?? size);
      return chunk.buffer.slice(
        chunk.byteOffset,
        chunk.byteOffset + chunk.byteLength,
      ) as ArrayBuffer;
    },
  };
  if (size >= 8 && isParquetHead(head))
    return parquetRecordSource(await openParquet(file, { mapping }));
  // A torch.save file (slime/miles `.pt` dumps), read by byte range like Parquet.
  if (isZipHead(head)) return torchRecordSource(torchDumpOf(await openTorchFile(file)));
  if (isJsonDocumentName(name) && size <= MAX_JSON_DOCUMENT_BYTES) {
    const records = jsonDocumentRecords(decoder.decode(await readSpan(bytes, 0, size)));
    return records ? memoryRecordSource(records, size, mapping) : undefined;
  }
  return undefined;
}

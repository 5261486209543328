/// <reference lib="webworker" />

import { type ExportFormat, exportLine } from "../core/files/exportRows";
import type { IndexDelta } from "../core/files/fileIndexer";
import { createFileIndex, finishFileIndex, indexChunk } from "../core/files/fileIndexer";
import { lineRange } from "../core/files/lineIndex";
import {
  indexRecords,
  jsonLinesNeedingMapping,
  needsColumnMapping,
  type RecordSource,
} from "../core/files/recordIndexer";
import { splitRecordRanges, splitScanRanges } from "../core/files/scanRanges";
import { mappingProblem, suggestColumnMapping } from "../core/formats/columnMapping";
import { readRolloutLine, readRolloutValue } from "../core/formats/readRolloutLine";
import type { CorrectionChoice } from "../core/mismatch/corrections/registry";
import type { Trajectory } from "../core/trajectory/types";
import { correctionsOfFile } from "./fileCorrections";
import { forensicsOfFile, forestOfRows } from "./fileForests";
import { type ByteSource, byteSource, readSpan, recordSourceOf } from "./recordFiles";
import type { RolloutFileSource, WorkerReply, WorkerRequest } from "./rolloutFileProtocol";

declare const self: DedicatedWorkerGlobalScope;

// A small first chunk makes the first rows browsable fast; later chunks are large for throughput.
const FIRST_CHUNK = 256 * 1024;
const CHUNK = 8 * 1024 * 1024;
const TAIL_POLL_MS = 1000;

const decoder = new TextDecoder();
const decode = (bytes: Uint8Array) => decoder.decode(bytes);
let opened:
  | {
      source: ByteSource;
      name: string;
      index: ReturnType<typeof createFileIndex>;
      /** Set for a Parquet file or a JSON document: records are read from it, not by line offsets. */
      records?: RecordSource;
      /** The JSONL file's first bytes, read before indexing: its first lines are read from them. */
      head?: Uint8Array;
    }
  | undefined;
let paused = false;
/** Bumped by every "open": a tailing loop of an earlier open (another mapping) then stops. */
let openCount = 0;
let wake: (() => void) | undefined;

function post(reply: WorkerReply): void {
  self.postMessage(reply);
}

/** Indexes a record file chunk by chunk (never tailed: Parquet and JSON documents are written whole). */
async function indexRecordFile(
  bytes: ByteSource,
  name: string,
  size: number,
  records: RecordSource,
): Promise<void> {
  const started = performance.now();
  const index = createFileIndex(name);
  opened = { source: bytes, name, index, records };
  let lines = 0;
  const report = (delta: IndexDelta, done: number) =>
    post({
      type: "progress",
      bytes: Math.min(size, done),
      totalBytes: size,
      lines,
      unit: "record",
      rows: delta.rows,
      errors: delta.errors,
      format: index.format,
      elapsedMs: performance.now() - started,
      caughtUp: lines === records.rows,
    });
  for await (const delta of indexRecords(records, index)) {
    lines += delta.lines;
    report(delta, delta.bytes);
  }
  if (records.rows === 0) report({ rows: [], errors: [], lines: 0 }, size);
}

/** Largest head read to find the first whole line of a JSONL file (its first record may be long). */
const MAX_HEAD_BYTES = 64 * 1024 * 1024;

/** The file's first bytes: FIRST_CHUNK, grown until they hold a line break (or the whole file). */
async function firstLines(bytes: ByteSource, size: number): Promise<Uint8Array> {
  for (let end = Math.min(size, FIRST_CHUNK); ; end = Math.min(size, MAX_HEAD_BYTES, end * 4)) {
    const head = await readSpan(bytes, 0, end);
    if (head.includes(0x0a) || end >= size || end >= MAX_HEAD_BYTES) return head;
  }
}

async function indexFile(source: RolloutFileSource, tail: boolean): Promise<void> {
  const generation = ++openCount;
  const current = () => generation === openCount;
  const { mapping } = source;
  const bytes = byteSource(source);
  const firstSize = await bytes.size();
  const records = await recordSourceOf(bytes, source.name, firstSize, mapping, source);
  const problem = records && mapping && mappingProblem(mapping, records.columns);
  if (problem) throw new Error(`${source.name}: the column mapping does not fit: ${problem}`);
  if (records && !mapping && (await needsColumnMapping(records))) {
    // Every row would be an "unknown record format" error: ask for a mapping first.
    const { columns } = records;
    post({ type: "mapping-needed", columns, suggested: suggestColumnMapping(columns) });
    return;
  }
  if (records) {
    await indexRecordFile(bytes, source.name, firstSize, records);
    return;
  }
  let head: Uint8Array | undefined;
  if (!mapping) {
    // JSON lines no format reads (their first record's keys): ask for a mapping, as for a table.
    head = await firstLines(bytes, firstSize);
    const columns = jsonLinesNeedingMapping(decode(head), head.length >= firstSize);
    if (columns) {
      post({ type: "mapping-needed", columns, suggested: suggestColumnMapping(columns) });
      return;
    }
  }
  await indexLines(source, bytes, tail, head && { bytes: head, size: firstSize }, current);
}

/**
 * Indexes a JSONL file from its start; `head` (its first bytes, already read: its first line at
 * least, and the file's size then) first, so the first row is listed, and can be read, at once.
 */
async function indexLines(
  source: RolloutFileSource,
  bytes: ByteSource,
  tail: boolean,
  head: { readonly bytes: Uint8Array; readonly size: number } | undefined,
  current: () => boolean,
): Promise<void> {
  const index = createFileIndex(source.name, source.mapping);
  // The head is kept for reads up to a chunk's size (a 64 MB first line is read again instead).
  const kept = head && head.bytes.length <= CHUNK ? { head: head.bytes } : {};
  opened = { source: bytes, name: source.name, index, ...kept };
  const started = performance.now();
  let chunkSize = FIRST_CHUNK;
  const report = (delta: IndexDelta, totalBytes: number, caughtUp: boolean) =>
    post({
      type: "progress",
      bytes: index.lines.scanned,
      totalBytes,
      lines: index.lines.count,
      rows: delta.rows,
      errors: delta.errors,
      format: index.format,
      elapsedMs: performance.now() - started,
      caughtUp,
    });
  if (head !== undefined && head.bytes.length > 0) {
    report(indexChunk(index, head.bytes, decode), head.size, false);
    chunkSize = CHUNK;
  }
  for (;;) {
    const size = await bytes.size();
    if (!current()) return;
    while (index.lines.scanned < size) {
      const end = Math.min(size, index.lines.scanned + chunkSize);
      const chunk = await bytes.read(index.lines.scanned, end);
      if (!current()) return;
      if (chunk.length === 0) break;
      report(indexChunk(index, chunk, decode), size, false);
      chunkSize = CHUNK;
    }
    // A tailed file keeps its open last line pending: the writer may still be appending to it.
    const last = tail ? { rows: [], errors: [], lines: 0 } : finishFileIndex(index, decode);
    report(last, size, true);
    if (!tail) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, TAIL_POLL_MS);
    });
    while (paused) await new Promise<void>((resolve) => (wake = resolve));
    if (!current()) return;
  }
}

/** The trajectories of 1-based line `line` (a Parquet or JSON record's, for record files). */
/** Reads bytes [start, end) of the open JSONL file. */
type LineBytes = (start: number, end: number) => Promise<Uint8Array>;

async function readLine(line: number, bytesOf?: LineBytes): Promise<readonly Trajectory[]> {
  if (!opened) throw new Error("no file is open");
  const { index, source, name, records, head } = opened;
  let result: ReturnType<typeof readRolloutLine>;
  if (records) {
    const [record] = await records.read(line - 1, line);
    result = readRolloutValue(record, line, index.format, name, records.mapping);
  } else {
    const [start, end] = lineRange(index.lines, line - 1);
    // Lines never change once written (a tailed file only grows), so the head's bytes stay true.
    const bytes =
      head && end <= head.length
        ? head.subarray(start, end)
        : await (bytesOf ?? ((from, to) => source.read(from, to)))(start, end);
    const text = decode(bytes);
    result = readRolloutLine(
      text.endsWith("\r") ? text.slice(0, -1) : text,
      line,
      index.format,
      name,
      index.mapping,
    );
  }
  if (result.kind === "error") throw new Error(`${name}:${line}: ${result.error.message}`);
  if (result.kind === "blank") throw new Error(`${name}:${line} is blank`);
  return result.trajectories;
}

/** Bytes read at once by a pass over the file's lines in order (the group forensics). */
const PASS_SPAN = 4 * 1024 * 1024;

/**
 * readLine for a pass over the file in line order: one read per span of up to PASS_SPAN bytes
 * rather than one per line (a served file answers each read with a range request).
 */
function lineReaderInOrder(): (line: number) => Promise<readonly Trajectory[]> {
  let span: { start: number; bytes: Uint8Array } | undefined;
  const bytesOf: LineBytes = async (start, end) => {
    const held = span;
    if (held && start >= held.start && end <= held.start + held.bytes.length) {
      return held.bytes.subarray(start - held.start, end - held.start);
    }
    if (!opened) throw new Error("no file is open");
    // Never past the bytes indexed so far (a tailed file may still be growing beyond them).
    const indexed = opened.index.lines.pendingStart;
    const to = Math.max(end, Math.min(start + PASS_SPAN, indexed));
    const bytes = await opened.source.read(start, to);
    span = { start, bytes };
    return bytes.subarray(0, end - start);
  };
  return (line) => readLine(line, bytesOf);
}

/**
 * The last line read for a row, kept: the rows of one line (an atropos group holds all its members
 * in one line) are read in a row by the forest, export and trajectory requests, and each would
 * otherwise parse the whole line again.
 */
let lastLine:
  | { readonly of: object; readonly line: number; readonly rows: Promise<readonly Trajectory[]> }
  | undefined;

function rowsOfLine(of: object, line: number): Promise<readonly Trajectory[]> {
  if (lastLine?.of === of && lastLine.line === line) return lastLine.rows;
  const rows = readLine(line);
  lastLine = { of, line, rows };
  rows.catch(() => {
    if (lastLine?.rows === rows) lastLine = undefined;
  });
  return rows;
}

async function readTrajectory(rowIndex: number): Promise<Trajectory> {
  if (!opened) throw new Error("no file is open");
  const { index, name } = opened;
  const row = index.rows[rowIndex];
  if (!row) throw new Error(`${name}: row ${rowIndex} is not indexed`);
  const t = (await rowsOfLine(opened, row.line))[row.row];
  if (!t) throw new Error(`${name}:${row.line} has no row ${row.row}`);
  return t;
}

async function fileForensics() {
  if (!opened) throw new Error("no file is open");
  const { index } = opened;
  const readInOrder = lineReaderInOrder();
  return index.format === undefined ? [] : forensicsOfFile(index.rows, index.format, readInOrder);
}

async function fileCorrections(choices: readonly CorrectionChoice[]) {
  if (!opened) throw new Error("no file is open");
  return correctionsOfFile(opened.index.rows, readLine, choices);
}

async function exportRows(indices: readonly number[], format: ExportFormat): Promise<Blob> {
  const parts: string[] = [];
  for (const i of indices) parts.push(exportLine(await readTrajectory(i), format), "\n");
  return new Blob(parts, { type: "application/jsonl" });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case "open":
      indexFile(request.source, request.tail).catch((e: unknown) =>
        post({ type: "error", message: message(e) }),
      );
      return;
    case "read":
      readTrajectory(request.index).then(
        (trajectory) => post({ type: "trajectory", id: request.id, trajectory }),
        (e: unknown) => post({ type: "error", id: request.id, message: message(e) }),
      );
      return;
    case "export":
      exportRows(request.indices, request.format).then(
        (blob) => post({ type: "exported", id: request.id, blob }),
        (e: unknown) => post({ type: "error", id: request.id, message: message(e) }),
      );
      return;
    case "forest":
      forestOfRows(request.key, request.indices, readTrajectory).then(
        (forest) => post({ type: "forest", id: request.id, forest }),
        (e: unknown) => post({ type: "error", id: request.id, message: message(e) }),
      );
      return;
    case "forensics":
      fileForensics().then(
        (groups) => post({ type: "forensics", id: request.id, groups }),
        (e: unknown) => post({ type: "error", id: request.id, message: message(e) }),
      );
      return;
    case "corrections":
      fileCorrections(request.choices).then(
        (replays) => post({ type: "corrections", id: request.id, replays }),
        (e: unknown) => post({ type: "error", id: request.id, message: message(e) }),
      );
      return;
    case "ranges": {
      if (!opened) {
        post({ type: "error", id: request.id, message: "no file is open" });
        return;
      }
      const { index, records } = opened;
      if (records) {
        // Whole record groups (Parquet row groups, a JSON document's records): a scan worker
        // opens the same records (workers/recordFiles.ts) and checks its range of them.
        const ranges = splitRecordRanges(records.groups, index.rows, request.targetBytes);
        const totalBytes = records.groups.reduce((sum, g) => sum + g.bytes, 0);
        post({ type: "ranges", id: request.id, ranges, format: index.format, totalBytes });
        return;
      }
      const totalBytes = index.lines.scanned;
      const ranges = splitScanRanges(index.lines, index.rows, totalBytes, request.targetBytes);
      post({ type: "ranges", id: request.id, ranges, format: index.format, totalBytes });
      return;
    }
    case "pause":
      paused = request.paused;
      wake?.();
      return;
    default: {
      const never: never = request;
      post({ type: "error", message: `unknown request ${JSON.stringify(never)}` });
    }
  }
};

import { detectDrift } from "../core/drift/detectDrift";
import { type FileDriftScan, scanDriftLine, startFileDriftScan } from "../core/drift/fileDriftScan";
import type { DriftMode } from "../core/drift/types";
import { loadOnce } from "../core/loadOnce";
import {
  createFileMismatchScan,
  type FileMismatchScan,
  finishCharts,
  scanMismatchLine,
  scanMismatchRecord,
} from "../core/mismatch/fileMismatch";
import { displayPieces } from "../core/tokenizer/pieces";
import { roundTripPlanFor } from "../core/tokenizer/roundTripPlan";
import type { Tokenizer } from "../core/tokenizer/types";
import type { Trajectory } from "../core/trajectory/types";
import { byteSource } from "./recordFiles";
import { forEachRecord, openRecords, type RangeScan, withRecordRanges } from "./recordScan";
import type { RolloutFileSource } from "./rolloutFileProtocol";
import type {
  DriftRangeJob,
  MismatchRangeScanned,
  RangeRows,
  RangeScanned,
  ScanProgress,
  ScanRequest,
  ScanResponse,
  TrajectoryDrift,
} from "./scanProtocol";

// Small enough that progress moves and a cancel is seen between chunks, big enough for throughput.
const CHUNK = 1024 * 1024;
const LF = 0x0a;

type ByteRange = { readonly start: number; readonly end: number; readonly firstLine: number };

/**
 * Feeds every line in bytes [start, end) of `source` (whole lines; numbered from `firstLine`) to
 * `onLine`, calling `onChunk` with the bytes read after every chunk; throws when `isCancelled`.
 * The next chunk is read while this one is checked, so a served file's round trip to the server
 * overlaps the work instead of adding to it.
 */
async function forEachLine(
  source: RolloutFileSource,
  range: ByteRange,
  onLine: (text: string, lineNo: number) => void,
  onChunk: (bytesRead: number) => void,
  isCancelled: () => boolean,
): Promise<void> {
  const decoder = new TextDecoder();
  const bytesOf = byteSource(source);
  let carry = new Uint8Array(0);
  let lineNo = range.firstLine - 1;
  const feed = (bytes: Uint8Array, from: number, to: number) => {
    lineNo++;
    onLine(decoder.decode(bytes.subarray(from, to)), lineNo);
  };
  const readFrom = (at: number) => {
    const end = Math.min(range.end, at + CHUNK);
    return { end, bytes: bytesOf.read(at, end) };
  };
  let next = range.start < range.end ? readFrom(range.start) : undefined;
  try {
    for (let at = range.start; next !== undefined; ) {
      if (isCancelled()) throw new Error("scan cancelled");
      const wanted = next.end - at;
      const chunk = await next.bytes;
      at += chunk.length;
      // A short read is the file's end (it shrank): nothing further to read ahead.
      next = at < range.end && chunk.length === wanted ? readFrom(at) : undefined;
      if (chunk.length === 0) break;
      const bytes = new Uint8Array(carry.length + chunk.length);
      bytes.set(carry);
      bytes.set(chunk, carry.length);
      let start = 0;
      for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, start)) {
        feed(bytes, start, lf);
        start = lf + 1;
      }
      carry = bytes.slice(start);
      onChunk(at - range.start);
    }
  } finally {
    // A read still in flight when the scan stops (cancelled, a bad chunk) is not waited for.
    next?.bytes.catch(() => undefined);
  }
  if (carry.length > 0) feed(carry, 0, carry.length);
}

function isCancel(error: unknown): boolean {
  return error instanceof Error && error.message === "scan cancelled";
}

async function sizeOf(source: RolloutFileSource): Promise<number> {
  if (source.kind === "blob") return source.blob.size;
  const res = await fetch(source.infoUrl, { cache: "no-store" });
  if (!res.ok) throw new Error(`${source.name}: ${res.status} ${await res.text()}`);
  const body: unknown = await res.json();
  const size = typeof body === "object" && body !== null && "size" in body ? body.size : undefined;
  if (typeof size !== "number") throw new Error(`${source.name}: the server sent no size`);
  return size;
}

/**
 * The mismatch of one range of a file, its rows posted as they are read (a delta per chunk); no
 * tokenizer. `cancelled` holds the ids of requests cancelled (the service's set).
 */
async function mismatchRange(
  request: Extract<ScanRequest, { type: "mismatchRange" }>,
  onRows: (rows: RangeRows<FileMismatchScan["rows"][number]>) => void,
  cancelled: Set<number>,
): Promise<MismatchRangeScanned> {
  const { id, source, range, format, options } = request;
  const { mapping, name } = source;
  const state = createFileMismatchScan();
  state.format = format;
  let posted = 0;
  const postNew = (bytes: number) => {
    onRows({ bytes, from: posted, rows: state.rows.slice(posted) });
    posted = state.rows.length;
  };
  try {
    if (range.records !== undefined) {
      // A Parquet table or JSON document: its records, read through its mapping as indexing does.
      const records = await openRecords(source);
      await forEachRecord(
        records,
        range,
        (value, lineNo) =>
          scanMismatchRecord(state, value, lineNo, range.firstRow, options, name, records.mapping),
        postNew,
        () => {
          if (cancelled.delete(id)) throw new Error("scan cancelled");
        },
      );
    } else {
      await forEachLine(
        source,
        range,
        (text, lineNo) =>
          scanMismatchLine(state, text, lineNo, range.firstRow, options, name, mapping),
        postNew,
        () => cancelled.delete(id),
      );
    }
  } catch (error) {
    throw isCancel(error) ? new Error("mismatch scan cancelled") : error;
  } finally {
    cancelled.delete(id);
  }
  if (state.rows.length > posted) postNew(range.end - range.start);
  const { lines, badLines } = state;
  return { lines, badLines, format: state.format, charts: finishCharts(state.charts) };
}

/** What the service's requests share: its tokenizers (each loaded once) and its cancelled ids. */
interface ScanContext {
  readonly tokenizerOf: (name: string) => Promise<Tokenizer>;
  /** The ids of requests cancelled and not yet stopped. */
  readonly cancelled: Set<number>;
  /** A range of any file: lines of a JSONL file, records of a Parquet table or JSON document. */
  readonly scanAnyRange: RangeScan;
}

/** A word no vocabulary holds whole: encoding it builds the word BPE's merge table. */
const WARM_WORD = new TextEncoder().encode("zqxjvkzqxjvk");

/**
 * Loads tokenizer `name` and readies its round trip as a scan's first row would: the plan (its
 * proof and caches) and the word BPE's merge table, both built once per tokenizer.
 */
async function readyTokenizer({ tokenizerOf }: ScanContext, name: string): Promise<void> {
  const tok = await tokenizerOf(name);
  const plan = roundTripPlanFor(tok);
  if (plan.path === "fast" && tok.pipeline && tok.pipeline.unusable === undefined) {
    tok.pipeline.encodeWord(WARM_WORD);
  }
}

/** One trajectory's drift in every mode asked, with its pieces. */
async function checkTrajectory(
  { tokenizerOf }: ScanContext,
  name: string,
  trajectory: Trajectory,
  modes: readonly DriftMode[],
): Promise<TrajectoryDrift> {
  const tok = await tokenizerOf(name);
  const ids = trajectory.segments.flatMap((s) => s.tokenIds);
  const { accelerator } = roundTripPlanFor(tok);
  return {
    results: detectDrift(trajectory, tok, { modes, accelerator }),
    pieces: displayPieces(ids, (id) => tok.tokenBytes(id)),
  };
}

/**
 * Checks the lines in bytes [start, end) of `source` (whole lines; numbered from `firstLine`),
 * calling `onChunk` after every chunk read with the scan so far and the bytes read.
 */
async function scanDriftLines(
  { tokenizerOf, cancelled }: Omit<ScanContext, "scanAnyRange">,
  id: number,
  job: DriftRangeJob,
  range: ByteRange,
  onChunk: (state: FileDriftScan, bytesRead: number) => void,
): Promise<FileDriftScan> {
  const { source, mode, format, chosen } = job;
  const tok = await tokenizerOf(job.tokenizer);
  const { state, checkOne } = startFileDriftScan(tok, mode, format, source.mapping, chosen);
  try {
    await forEachLine(
      source,
      range,
      (text, lineNo) => scanDriftLine(state, text, lineNo, checkOne, source.name),
      (bytes) => onChunk(state, bytes),
      () => cancelled.delete(id),
    );
  } catch (error) {
    throw isCancel(error) ? new Error("drift scan cancelled") : error;
  }
  cancelled.delete(id);
  return state;
}

/** A whole JSONL file's drift in one mode, with progress in bytes and rows. */
async function scanWholeFile(
  context: ScanContext,
  request: Extract<ScanRequest, { type: "scan" }>,
  onProgress: (progress: ScanProgress) => void,
): Promise<FileDriftScan> {
  const { id, tokenizer, source, mode } = request;
  await context.tokenizerOf(tokenizer);
  const totalBytes = await sizeOf(source);
  const range = { start: 0, end: totalBytes, firstLine: 1 };
  const job = { tokenizer, source, mode, format: undefined };
  return scanDriftLines(context, id, job, range, (state, bytes) =>
    onProgress({ bytes, totalBytes, rows: state.rows.length }),
  );
}

/** One range of a file, its rows posted as they are checked (a delta per chunk). */
async function driftRange(
  { scanAnyRange }: ScanContext,
  request: Extract<ScanRequest, { type: "driftRange" }>,
  onRows: (rows: RangeRows) => void,
): Promise<RangeScanned> {
  const { id, range, type: _type, ...job } = request;
  let posted = 0;
  const postNew = (state: FileDriftScan, bytes: number) => {
    onRows({ bytes, from: posted, rows: state.rows.slice(posted) });
    posted = state.rows.length;
  };
  const state = await scanAnyRange(id, job, range, postNew);
  if (state.rows.length > posted) postNew(state, range.end - range.start);
  const { lines, badLines, roundTrip, unchecked } = state;
  return roundTrip ? { lines, badLines, unchecked, roundTrip } : { lines, badLines, unchecked };
}

/** Answers one request through `post` (throws on failure; `handle` turns that into a message). */
async function answer(
  context: ScanContext,
  request: ScanRequest,
  post: (response: ScanResponse) => void,
): Promise<void> {
  const { id } = request;
  switch (request.type) {
    case "check": {
      const { tokenizer, trajectory, modes } = request;
      post({
        type: "checked",
        id,
        drift: await checkTrajectory(context, tokenizer, trajectory, modes),
      });
      return;
    }
    case "scan": {
      const onProgress = (p: ScanProgress) => post({ type: "progress", id, ...p });
      post({ type: "scanned", id, scan: await scanWholeFile(context, request, onProgress) });
      return;
    }
    case "driftRange": {
      const onRows = (rows: RangeRows) => post({ type: "rangeRows", id, ...rows });
      post({ type: "rangeScanned", id, ...(await driftRange(context, request, onRows)) });
      return;
    }
    case "mismatchRange": {
      const onRows = (rows: RangeRows<FileMismatchScan["rows"][number]>) =>
        post({ type: "mismatchRows", id, ...rows });
      const done = await mismatchRange(request, onRows, context.cancelled);
      post({ type: "mismatchScanned", id, ...done });
      return;
    }
    case "load":
      await readyTokenizer(context, request.tokenizer);
      post({ type: "loaded", id });
      return;
    case "cancel":
      context.cancelled.add(id);
      return;
    default: {
      const never: never = request;
      throw new Error(`unknown drift request ${JSON.stringify(never)}`);
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Drift checks with each tokenizer loaded once: one trajectory (all modes, with pieces) or a whole
 * file (one mode, compact rows). The worker wraps it; the client runs it on the main thread when
 * workers are unavailable.
 */
export function createScanService(load: (name: string) => Promise<Tokenizer>) {
  const tokenizerOf = loadOnce(load);
  const cancelled = new Set<number>();
  const scanLines: RangeScan = (id, job, range, onChunk) =>
    scanDriftLines({ tokenizerOf, cancelled }, id, job, range, onChunk);
  const context: ScanContext = {
    tokenizerOf,
    cancelled,
    scanAnyRange: withRecordRanges(scanLines, tokenizerOf, cancelled),
  };

  /** Answers one request through `post`; never throws: failures become `error` messages. */
  async function handle(request: ScanRequest, post: (response: ScanResponse) => void) {
    try {
      await answer(context, request, post);
    } catch (error) {
      post({ type: "error", id: request.id, message: message(error) });
    }
  }

  return { handle };
}

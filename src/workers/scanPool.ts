import type { ChosenTokenizer, FileDriftScan } from "../core/drift/fileDriftScan";
import type { RowDrift } from "../core/drift/rowDrift";
import type { DriftMode } from "../core/drift/types";
import type { ScanRange } from "../core/files/scanRanges";
import type { FormatId } from "../core/formats/types";
import {
  emptyCharts,
  finishCharts,
  type MismatchCharts,
  type MismatchScanOptions,
  mergeCharts,
  type RowMismatch,
} from "../core/mismatch/fileMismatch";
import type { FileRanges, RolloutFileSource } from "./rolloutFileProtocol";
import type { ScanClient } from "./scanClient";
import type { MismatchRangeScanned, RangeRows, RangeScanned, ScanProgress } from "./scanProtocol";

/**
 * At most this many scan workers scan one file. Each holds its own compact tokenizer: the 5-6 MB
 * blob, the word BPE's merge table once it encodes (8 MB for Qwen3, 16 MB for Llama-3) and its caches.
 */
export const MAX_SCAN_WORKERS = 8;
/**
 * Another worker costs a worker start and a compact tokenizer load (its blob fetched, then 5-15 ms
 * to read and about 20 ms to build the merge table, in Node): only worth it for this much file.
 */
const BYTES_PER_EXTRA_WORKER = 4 * 1024 * 1024;
const MIN_RANGE = 256 * 1024;
const MAX_RANGE = 4 * 1024 * 1024;
/** Ranges per worker: enough that workers finishing early take more, and rows stream in. */
const RANGES_PER_WORKER = 4;
/**
 * A worker is handed its next range when this much of its current one is left to read (one read
 * chunk of the scan worker): at most two ranges per worker in flight.
 */
const LOOKAHEAD_BYTES = 1024 * 1024;
/** The drift column is refreshed at most this often while rows stream in. */
const REPORT_EVERY_MS = 150;

/** How many workers scan a file of `totalBytes` on a machine with `cores` logical cores. */
export function scanWorkerCount(cores: number | undefined, totalBytes: number): number {
  const byCores = Math.min(MAX_SCAN_WORKERS, Math.max(1, Math.floor(cores ?? 1)));
  return Math.min(byCores, Math.max(1, Math.ceil(totalBytes / BYTES_PER_EXTRA_WORKER)));
}

/** The size of the ranges `workers` workers scan a file of `totalBytes` in. */
export function scanRangeBytes(totalBytes: number, workers: number): number {
  const even = Math.ceil(totalBytes / (workers * RANGES_PER_WORKER));
  return Math.min(MAX_RANGE, Math.max(MIN_RANGE, even));
}

/** A range handed to a worker: settles `nearlyDone` when little of it is left, `done` at its end. */
interface RangeInFlight {
  readonly nearlyDone: Promise<void>;
  readonly done: Promise<void>;
}

/** Progress of a pooled scan, with every row checked so far (by row index; holes not yet). */
export interface PoolScanProgress<Row = RowDrift> extends ScanProgress {
  readonly partial: readonly (Row | undefined)[];
}

export interface PoolScanJob {
  readonly tokenizer: string;
  /** Set when the tokenizer was chosen for the file rather than picked (DriftRangeJob). */
  readonly chosen?: ChosenTokenizer;
  readonly source: RolloutFileSource;
  readonly mode: DriftMode;
  readonly file: FileRanges;
}

/** One scan over a file's ranges: how a worker scans one range, and what it said at the end. */
export interface RangeScan<Row, Done> {
  readonly file: FileRanges;
  /** The file's name, for errors. */
  readonly name: string;
  scanRange(
    worker: number,
    range: ScanRange,
    onRows: (delta: RangeRows<Row>) => void,
    signal: AbortSignal,
  ): Promise<Done & { readonly lines: number; readonly badLines: number }>;
}

/**
 * Scans a file's ranges on `workers` workers at once: each takes the next range when it is free,
 * and rows land at their row index as they arrive (`onProgress`, throttled, with a copy of the
 * rows so far); `onDone` gets each range's end, in the order they finish. Aborting `signal`
 * cancels every range in flight. The rows are the one scan of the whole file a single worker
 * would give. Drift and mismatch scans are both this, with their own requests.
 */
export async function scanRangesWithPool<Row, Done>(
  workers: number,
  job: RangeScan<Row, Done>,
  onProgress: (progress: PoolScanProgress<Row>) => void,
  onDone: (done: Done) => void,
  signal?: AbortSignal,
): Promise<(Row | undefined)[]> {
  const { ranges, totalBytes } = job.file;
  const rows: (Row | undefined)[] = [];
  let bytes = 0;
  let checked = 0;
  let lastReport = Number.NEGATIVE_INFINITY;
  const report = (isFinal: boolean) => {
    const now = Date.now();
    if (!isFinal && now - lastReport < REPORT_EVERY_MS) return;
    lastReport = now;
    onProgress({ bytes, totalBytes, rows: checked, partial: rows.slice() });
  };
  // One controller for the whole scan: the user's abort, or a failed range, stops every range.
  const stop = new AbortController();
  const handleAbort = () => stop.abort();
  signal?.addEventListener("abort", handleAbort, { once: true });
  if (signal?.aborted) stop.abort();

  let next = 0;
  /** Starts the next range on `worker`, or undefined when none is left (or the scan stopped). */
  const startRange = (worker: number): RangeInFlight | undefined => {
    if (next >= ranges.length || stop.signal.aborted) return undefined;
    const k = next++;
    const range = ranges[k] as ScanRange;
    const size = range.end - range.start;
    let rangeBytes = 0;
    let rangeRows = 0;
    let handleNearlyDone = () => {};
    const nearlyDone = new Promise<void>((resolve) => {
      handleNearlyDone = resolve;
    });
    if (size <= LOOKAHEAD_BYTES) handleNearlyDone();
    const done = job
      .scanRange(
        worker,
        range,
        (delta) => {
          delta.rows.forEach((row, j) => {
            rows[range.firstRow + delta.from + j] = row;
          });
          rangeRows += delta.rows.length;
          checked += delta.rows.length;
          bytes += delta.bytes - rangeBytes;
          rangeBytes = delta.bytes;
          if (size - rangeBytes <= LOOKAHEAD_BYTES) handleNearlyDone();
          report(false);
        },
        stop.signal,
      )
      .then((end) => {
        bytes += size - rangeBytes;
        const expected = (ranges[k + 1]?.firstRow ?? range.firstRow + rangeRows) - range.firstRow;
        if (rangeRows !== expected) {
          throw new Error(
            `${job.name}: lines from ${range.firstLine} hold ${rangeRows} trajectories, the ` +
              `file's index says ${expected}; the file changed while it was checked`,
          );
        }
        onDone(end);
      })
      .catch((error: unknown) => {
        stop.abort(); // no further range starts, every range in flight is cancelled
        throw error;
      })
      .finally(handleNearlyDone);
    // Awaited later (or never, when an earlier range failed and the scan stops): not unhandled.
    done.catch(() => undefined);
    return { nearlyDone, done };
  };
  // Each worker is handed its next range as its current one nears its end, so the request and the
  // next range's first read overlap the last chunk instead of following it.
  const work = async (worker: number) => {
    for (let current = startRange(worker); current !== undefined; ) {
      await current.nearlyDone;
      const following = startRange(worker);
      await current.done;
      current = following;
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, (_, w) => work(w)));
    if (stop.signal.aborted) throw new Error("scan cancelled");
  } catch (error) {
    stop.abort();
    throw error;
  } finally {
    signal?.removeEventListener("abort", handleAbort);
  }
  report(true);
  return rows;
}

/** A drift scan of a file's ranges on every client at once (see scanRangesWithPool). */
export async function scanDriftWithPool(
  clients: readonly ScanClient[],
  job: PoolScanJob,
  onProgress: (progress: PoolScanProgress) => void,
  signal?: AbortSignal,
): Promise<FileDriftScan> {
  const { tokenizer, chosen, source, mode, file } = job;
  const rangeJob = { tokenizer, ...(chosen ? { chosen } : {}), source, mode, format: file.format };
  const scan: FileDriftScan = {
    format: file.format,
    rows: [],
    lines: 0,
    badLines: 0,
    unchecked: {},
  };
  const rows = await scanRangesWithPool<RowDrift, RangeScanned>(
    clients.length,
    {
      file,
      name: source.name,
      scanRange: (w, range, onRows, stop) =>
        (clients[w] as ScanClient).driftRange(rangeJob, range, onRows, stop),
    },
    onProgress,
    (done) => {
      scan.lines = Math.max(scan.lines, done.lines);
      scan.badLines += done.badLines;
      for (const [reason, n] of Object.entries(done.unchecked)) {
        scan.unchecked[reason] = (scan.unchecked[reason] ?? 0) + n;
      }
      if (done.roundTrip) scan.roundTrip ??= done.roundTrip;
    },
    signal,
  ).catch((error: unknown) => {
    throw error instanceof Error && error.message === "scan cancelled"
      ? new Error("drift scan cancelled")
      : error;
  });
  scan.rows.push(...rows);
  return scan;
}

/** A file's mismatch: per row (undefined where a trajectory lacks the lanes), and its charts. */
export interface FileMismatch {
  readonly format: FormatId | undefined;
  readonly rows: readonly (RowMismatch | undefined)[];
  readonly lines: number;
  readonly badLines: number;
  readonly charts: MismatchCharts;
}

export interface MismatchPoolJob {
  readonly source: RolloutFileSource;
  readonly options: MismatchScanOptions;
  readonly file: FileRanges;
}

/** The mismatch of a file's ranges on every client at once; the ranges' charts merged. */
export async function scanMismatchWithPool(
  clients: readonly ScanClient[],
  job: MismatchPoolJob,
  onProgress: (progress: PoolScanProgress<RowMismatch>) => void,
  signal?: AbortSignal,
): Promise<FileMismatch> {
  const { source, options, file } = job;
  const charts = emptyCharts();
  let lines = 0;
  let badLines = 0;
  let format = file.format;
  const rows = await scanRangesWithPool<RowMismatch, MismatchRangeScanned>(
    clients.length,
    {
      file,
      name: source.name,
      scanRange: (w, range, onRows, stop) =>
        (clients[w] as ScanClient).mismatchRange(source, range, file.format, options, onRows, stop),
    },
    onProgress,
    (done) => {
      lines = Math.max(lines, done.lines);
      badLines += done.badLines;
      format ??= done.format;
      mergeCharts(charts, done.charts);
    },
    signal,
  ).catch((error: unknown) => {
    throw error instanceof Error && error.message === "scan cancelled"
      ? new Error("mismatch scan cancelled")
      : error;
  });
  return { format, rows, lines, badLines, charts: finishCharts(charts) };
}

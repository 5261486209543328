import type { FileDriftScan } from "../core/drift/fileDriftScan";
import type { DriftMode } from "../core/drift/types";
import type { ScanRange } from "../core/files/scanRanges";
import type { FormatId } from "../core/formats/types";
import type { MismatchScanOptions, RowMismatch } from "../core/mismatch/fileMismatch";
import type { Trajectory } from "../core/trajectory/types";
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
import { type TokenizerBackedOptions, tokenizerBackedRpc } from "./tokenizerBacked";
import { type WorkerPort, workerPort } from "./workerRpc";

/** What the client needs from a worker; `startScanWorker` adapts a real one, tests pass a fake. */
export type ScanWorkerPort = WorkerPort<ScanRequest, ScanResponse>;

export interface ScanClient {
  /** Every mode the record allows (of `modes`), with display pieces of the recorded tokens. */
  check(
    tokenizer: string,
    trajectory: Trajectory,
    modes: readonly DriftMode[],
  ): Promise<TrajectoryDrift>;
  /** One mode over every trajectory of a file; `signal` cancels between chunks. */
  scan(
    tokenizer: string,
    source: RolloutFileSource,
    mode: DriftMode,
    onProgress: (progress: ScanProgress) => void,
    signal?: AbortSignal,
  ): Promise<FileDriftScan>;
  /** One range of a file's lines; `onRows` gets its rows as they are checked. */
  driftRange(
    job: DriftRangeJob,
    range: ScanRange,
    onRows: (rows: RangeRows) => void,
    signal?: AbortSignal,
  ): Promise<RangeScanned>;
  /** The mismatch of one range of a file's lines (no tokenizer); `onRows` as they are read. */
  mismatchRange(
    source: RolloutFileSource,
    range: ScanRange,
    format: FormatId | undefined,
    options: MismatchScanOptions,
    onRows: (rows: RangeRows<RowMismatch>) => void,
    signal?: AbortSignal,
  ): Promise<MismatchRangeScanned>;
  /** Loads `tokenizer` and readies its round trip, so a scan that follows starts checking at once. */
  load(tokenizer: string): Promise<void>;
  dispose(): void;
}

/** A scan worker (drift and mismatch), or undefined where workers are unavailable. */
export function startScanWorker(): ScanWorkerPort | undefined {
  return workerPort(
    () =>
      new Worker(new URL("./scan.worker.ts", import.meta.url), { type: "module", name: "scan" }),
    "scan",
  );
}

export type ScanClientOptions = TokenizerBackedOptions<ScanRequest, ScanResponse>;

/**
 * Promise API over the scan worker (drift checks and file scans of drift and mismatch). Without Worker support (or with `port: undefined`) the same
 * service runs on the main thread, answering through the same messages.
 */
export function createScanClient(
  options: ScanClientOptions = { port: startScanWorker() },
): ScanClient {
  const rpc = tokenizerBackedRpc(
    "scan",
    options,
    async (load) => (await import("./scanService")).createScanService(load).handle,
  );
  return {
    check: (tokenizer, trajectory, modes) =>
      rpc.request<TrajectoryDrift>(
        (id) => ({ type: "check", id, tokenizer, trajectory, modes }),
        (response, settle) => {
          if (response.type === "checked") settle(response.drift);
        },
      ),
    scan: (tokenizer, source, mode, onProgress, signal) =>
      rpc.request<FileDriftScan>(
        (id) => ({ type: "scan", id, tokenizer, source, mode }),
        (response, settle) => {
          if (response.type === "progress") onProgress(response);
          else if (response.type === "scanned") settle(response.scan);
        },
        { signal, cancel: (id) => ({ type: "cancel", id }) },
      ),
    driftRange: (job, range, onRows, signal) =>
      rpc.request<RangeScanned>(
        (id) => ({ type: "driftRange", id, range, ...job }),
        (response, settle) => {
          if (response.type === "rangeRows") onRows(response);
          else if (response.type === "rangeScanned") settle(response);
        },
        { signal, cancel: (id) => ({ type: "cancel", id }) },
      ),
    mismatchRange: (source, range, format, options, onRows, signal) =>
      rpc.request<MismatchRangeScanned>(
        (id) => ({ type: "mismatchRange", id, source, range, format, options }),
        (response, settle) => {
          if (response.type === "mismatchRows") onRows(response);
          else if (response.type === "mismatchScanned") settle(response);
        },
        { signal, cancel: (id) => ({ type: "cancel", id }) },
      ),
    load: (tokenizer) =>
      rpc.request<void>(
        (id) => ({ type: "load", id, tokenizer }),
        (response, settle) => {
          if (response.type === "loaded") settle();
        },
      ),
    dispose: () => rpc.dispose(),
  };
}

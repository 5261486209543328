import type { FileDriftScan } from "../core/drift/fileDriftScan";
import type { DriftMode } from "../core/drift/types";
import type { ScanRange } from "../core/files/scanRanges";
import type { FormatId } from "../core/formats/types";
import type { MismatchScanOptions, RowMismatch } from "../core/mismatch/fileMismatch";
import type { Trajectory } from "../core/trajectory/types";
import type {
  DriftRangeJob,
  DriftRequest,
  DriftResponse,
  MismatchRangeScanned,
  RangeRows,
  RangeScanned,
  ScanProgress,
  TrajectoryDrift,
} from "./driftProtocol";
import type { RolloutFileSource } from "./rolloutFileProtocol";
import { type TokenizerBackedOptions, tokenizerBackedRpc } from "./tokenizerBacked";
import { type WorkerPort, workerPort } from "./workerRpc";

/** What the client needs from a worker; `startDriftWorker` adapts a real one, tests pass a fake. */
export type DriftWorkerPort = WorkerPort<DriftRequest, DriftResponse>;

export interface DriftClient {
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
  scanRange(
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
  dispose(): void;
}

/** A drift worker, or undefined where workers are unavailable. */
export function startDriftWorker(): DriftWorkerPort | undefined {
  return workerPort(
    () =>
      new Worker(new URL("./drift.worker.ts", import.meta.url), { type: "module", name: "drift" }),
    "drift",
  );
}

export type DriftClientOptions = TokenizerBackedOptions<DriftRequest, DriftResponse>;

/**
 * Promise API over the drift worker. Without Worker support (or with `port: undefined`) the same
 * service runs on the main thread, answering through the same messages.
 */
export function createDriftClient(
  options: DriftClientOptions = { port: startDriftWorker() },
): DriftClient {
  const rpc = tokenizerBackedRpc(
    "drift",
    options,
    async (load) => (await import("./driftService")).createDriftService(load).handle,
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
    scanRange: (job, range, onRows, signal) =>
      rpc.request<RangeScanned>(
        (id) => ({ type: "scanRange", id, range, ...job }),
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
    dispose: () => rpc.dispose(),
  };
}

import type { ExportFormat } from "../core/files/exportRows";
import type { RowSummary } from "../core/files/rowSummary";
import type { FormatId, LineError } from "../core/formats/types";
import type { Trajectory } from "../core/trajectory/types";
import type { RolloutFileSource, WorkerReply, WorkerRequest } from "./rolloutFileProtocol";

/** What the UI shows of an open file; replaced (never mutated) on every change. */
export interface RolloutFileState {
  readonly name: string;
  /** Every row summary so far, in file order. Append-only: `version` says when it grew. */
  readonly rows: readonly RowSummary[];
  readonly errors: readonly LineError[];
  readonly bytes: number;
  readonly totalBytes: number;
  readonly lines: number;
  readonly format: FormatId | undefined;
  /** Bytes per second since indexing started. */
  readonly rate: number;
  readonly caughtUp: boolean;
  readonly isTailing: boolean;
  readonly isPaused: boolean;
  readonly failure: string | undefined;
  readonly version: number;
}

type Pending = {
  resolve: (value: Trajectory | Blob) => void;
  reject: (error: Error) => void;
};

/**
 * Main-thread side of one file's worker: indexing progress as an external store
 * (subscribe/getState for useSyncExternalStore), and trajectories / exports on request.
 */
export class RolloutFileClient {
  private readonly worker: Worker;
  /** Where the file is read from (the drift worker reads it again from there). */
  readonly source: RolloutFileSource;
  private readonly listeners = new Set<() => void>();
  private readonly pending = new Map<number, Pending>();
  // Grown in place: copying every row on every progress message would be quadratic.
  private readonly rows: RowSummary[] = [];
  private readonly errors: LineError[] = [];
  private nextRequest = 1;
  private state: RolloutFileState;

  constructor(source: RolloutFileSource, isTailing: boolean) {
    this.source = source;
    this.state = {
      name: source.name,
      rows: this.rows,
      errors: this.errors,
      bytes: 0,
      totalBytes: source.kind === "blob" ? source.blob.size : 0,
      lines: 0,
      format: undefined,
      rate: 0,
      caughtUp: false,
      isTailing,
      isPaused: false,
      failure: undefined,
      version: 0,
    };
    this.worker = new Worker(new URL("./rolloutFile.worker.ts", import.meta.url), {
      type: "module",
      name: `rollout-file ${source.name}`,
    });
    this.worker.onmessage = (event: MessageEvent<WorkerReply>) => this.handleReply(event.data);
    this.worker.onerror = (event) => this.update({ failure: event.message || "worker crashed" });
    this.send({ type: "open", source, tail: isTailing });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): RolloutFileState => this.state;

  /** The full trajectory of row `index` (0-based in file order), parsed from its line. */
  read(index: number): Promise<Trajectory> {
    return this.request((requestId) => ({ type: "read", requestId, index })).then((v) => {
      if (v instanceof Blob) throw new Error("worker answered a read with a blob");
      return v;
    });
  }

  /** The rows at `indices` as one JSONL blob in `format`. */
  export(indices: readonly number[], format: ExportFormat): Promise<Blob> {
    return this.request((requestId) => ({ type: "export", requestId, indices, format })).then(
      (v) => {
        if (!(v instanceof Blob)) throw new Error("worker answered an export with a trajectory");
        return v;
      },
    );
  }

  /** Stops or resumes polling a tailed file for new lines. */
  setPaused(isPaused: boolean): void {
    this.send({ type: "pause", paused: isPaused });
    this.update({ isPaused });
  }

  dispose(): void {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error("file closed"));
    this.pending.clear();
  }

  private request(build: (requestId: number) => WorkerRequest): Promise<Trajectory | Blob> {
    const requestId = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject });
      this.send(build(requestId));
    });
  }

  private send(request: WorkerRequest): void {
    this.worker.postMessage(request);
  }

  private update(patch: Partial<RolloutFileState>): void {
    this.state = { ...this.state, ...patch, version: this.state.version + 1 };
    for (const listener of this.listeners) listener();
  }

  private handleReply(reply: WorkerReply): void {
    switch (reply.type) {
      case "progress": {
        for (const row of reply.rows) this.rows.push(row);
        for (const error of reply.errors) this.errors.push(error);
        this.update({
          bytes: reply.bytes,
          totalBytes: reply.totalBytes,
          lines: reply.lines,
          format: reply.format,
          rate: reply.elapsedMs > 0 ? (reply.bytes / reply.elapsedMs) * 1000 : 0,
          caughtUp: reply.caughtUp,
        });
        return;
      }
      case "trajectory":
        this.settle(reply.requestId, (p) => p.resolve(reply.trajectory));
        return;
      case "exported":
        this.settle(reply.requestId, (p) => p.resolve(reply.blob));
        return;
      case "failed":
        if (reply.requestId === undefined) this.update({ failure: reply.message });
        else this.settle(reply.requestId, (p) => p.reject(new Error(reply.message)));
        return;
      default: {
        const never: never = reply;
        this.update({ failure: `unknown worker reply ${JSON.stringify(never)}` });
      }
    }
  }

  private settle(requestId: number, action: (p: Pending) => void): void {
    const p = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (p) action(p);
  }
}

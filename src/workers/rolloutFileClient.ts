import type { ExportFormat } from "../core/files/exportRows";
import type { RowSummary } from "../core/files/rowSummary";
import type { LocatedForest } from "../core/forest/forestOf";
import type { ColumnMapping } from "../core/formats/columnMapping";
import type { FormatId, LineError } from "../core/formats/types";
import type { CorrectionChoice } from "../core/mismatch/corrections/registry";
import type { ReplaySummary } from "../core/mismatch/corrections/replay";
import type { Trajectory } from "../core/trajectory/types";
import type {
  FileRanges,
  GroupForensics,
  RolloutFileSource,
  WorkerReply,
  WorkerRequest,
} from "./rolloutFileProtocol";
import { createWorkerRpc, type WorkerPort, type WorkerRpc, workerPort } from "./workerRpc";

/** The worker that indexes and reads one file (the app needs Worker support for files). */
function startRolloutFileWorker(name: string): WorkerPort<WorkerRequest, WorkerReply> {
  const port = workerPort<WorkerRequest, WorkerReply>(
    () =>
      new Worker(new URL("./rolloutFile.worker.ts", import.meta.url), {
        type: "module",
        name: `rollout-file ${name}`,
      }),
    "rollout-file",
  );
  if (!port) throw new Error(`${name}: this browser cannot run workers, so files cannot open`);
  return port;
}

/** A file worker started before its file was known (`warmRolloutFileWorker`), for the next file. */
let spareWorker: WorkerPort<WorkerRequest, WorkerReply> | undefined;

/**
 * Starts a file worker now (its script fetched and evaluated) for the next file to open: a row
 * opened by its URL starts it while the server is still listing its files.
 */
export function warmRolloutFileWorker(): void {
  spareWorker ??= startRolloutFileWorker("next file");
}

/** The warm worker if there is one, else a new one for file `name`. */
function takeRolloutFileWorker(name: string): WorkerPort<WorkerRequest, WorkerReply> {
  const worker = spareWorker ?? startRolloutFileWorker(name);
  spareWorker = undefined;
  return worker;
}

/** What the UI shows of an open file; replaced (never mutated) on every change. */
export interface RolloutFileState {
  readonly name: string;
  /** Every row summary so far, in file order. Append-only: `version` says when it grew. */
  readonly rows: readonly RowSummary[];
  readonly errors: readonly LineError[];
  readonly bytes: number;
  readonly totalBytes: number;
  readonly lines: number;
  /** What `lines` counts, and what a row's `line` numbers: a table's or document's records. */
  readonly unit: "line" | "record";
  readonly format: FormatId | undefined;
  /** Bytes per second since indexing started. */
  readonly rate: number;
  readonly caughtUp: boolean;
  readonly isTailing: boolean;
  readonly isPaused: boolean;
  readonly failure: string | undefined;
  /**
   * Set for a Parquet, JSON or JSONL table no known producer wrote: its columns, the suggested mapping,
   * and the mapping it is read through (undefined while one is needed: nothing is indexed yet).
   */
  readonly table: TableMapping | undefined;
  readonly version: number;
}

export interface TableMapping {
  readonly columns: readonly string[];
  readonly suggested: ColumnMapping | undefined;
  readonly mapping: ColumnMapping | undefined;
}

/**
 * Main-thread side of one file's worker: indexing progress as an external store
 * (subscribe/getState for useSyncExternalStore), and trajectories / exports on request.
 */
export class RolloutFileClient {
  private readonly rpc: WorkerRpc<WorkerRequest, WorkerReply>;
  /** Where the file is read from, and through which column mapping (scan workers read it too). */
  private fileSource: RolloutFileSource;
  private readonly listeners = new Set<() => void>();
  // Grown in place: copying every row on every progress message would be quadratic.
  private readonly rows: RowSummary[] = [];
  private readonly errors: LineError[] = [];
  private state: RolloutFileState;

  constructor(
    source: RolloutFileSource,
    isTailing: boolean,
    port: WorkerPort<WorkerRequest, WorkerReply> = takeRolloutFileWorker(source.name),
  ) {
    this.fileSource = source;
    this.state = {
      name: source.name,
      rows: this.rows,
      errors: this.errors,
      bytes: 0,
      totalBytes: source.kind === "blob" ? source.blob.size : 0,
      lines: 0,
      unit: "line",
      format: undefined,
      rate: 0,
      caughtUp: false,
      isTailing,
      isPaused: false,
      failure: undefined,
      table: undefined,
      version: 0,
    };
    this.rpc = createWorkerRpc<WorkerRequest, WorkerReply>({
      name: "rollout-file",
      port,
      onNotice: (reply) => this.handleNotice(reply),
      onCrash: (reason) => this.update({ failure: reason }),
    });
    this.rpc.send({ type: "open", source, tail: isTailing });
  }

  get source(): RolloutFileSource {
    return this.fileSource;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): RolloutFileState => this.state;

  /** The full trajectory of row `index` (0-based in file order), parsed from its line. */
  read(index: number): Promise<Trajectory> {
    return this.rpc.request(
      (id) => ({ type: "read", id, index }),
      (reply, settle: (t: Trajectory) => void) => {
        if (reply.type === "trajectory") settle(reply.trajectory);
      },
    );
  }

  /**
   * Row `index` parsed, asked for the moment the index reaches it (a deep link's row is read as
   * soon as its line is indexed, not after the page has re-rendered with its summary). Stays
   * pending while the row is not indexed, and when indexing fails first (the page shows why).
   */
  readWhenIndexed(index: number): Promise<Trajectory> {
    return new Promise<void>((resolve) => {
      const check = () => {
        const { rows, failure } = this.state;
        if (rows.length <= index && failure === undefined) return;
        unsubscribe();
        if (rows.length > index) resolve();
      };
      const unsubscribe = this.subscribe(check);
      check();
    }).then(() => this.read(index));
  }

  /** The forest and forensics of one group: the rows at `indices`, keyed `key` (docs/forest.md). */
  forest(key: string, indices: readonly number[]): Promise<LocatedForest> {
    return this.rpc.request(
      (id) => ({ type: "forest", id, key, indices }),
      (reply, settle: (forest: LocatedForest) => void) => {
        if (reply.type === "forest") settle(reply.forest);
      },
    );
  }

  /** Every group of the file with its forensics, once the file was read to its end. */
  async forensics(): Promise<readonly GroupForensics[]> {
    await this.caughtUp();
    return this.rpc.request(
      (id) => ({ type: "forensics", id }),
      (reply, settle: (groups: readonly GroupForensics[]) => void) => {
        if (reply.type === "forensics") settle(reply.groups);
      },
    );
  }

  /** Every choice replayed over the file as one batch, once it was read to its end. */
  async corrections(choices: readonly CorrectionChoice[]): Promise<readonly ReplaySummary[]> {
    await this.caughtUp();
    return this.rpc.request(
      (id) => ({ type: "corrections", id, choices }),
      (reply, settle: (replays: readonly ReplaySummary[]) => void) => {
        if (reply.type === "corrections") settle(reply.replays);
      },
    );
  }

  /** The rows at `indices` as one JSONL blob in `format`. */
  export(indices: readonly number[], format: ExportFormat): Promise<Blob> {
    return this.rpc.request(
      (id) => ({ type: "export", id, indices, format }),
      (reply, settle: (blob: Blob) => void) => {
        if (reply.type === "exported") settle(reply.blob);
      },
    );
  }

  /** Resolves once the file was read to its end (at once when it was), or rejects on failure. */
  caughtUp(): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const { caughtUp, failure } = this.state;
        if (failure === undefined && !caughtUp) return false;
        unsubscribe();
        if (failure !== undefined) reject(new Error(`${this.source.name}: ${failure}`));
        else resolve();
        return true;
      };
      const unsubscribe = this.subscribe(check);
      check();
    });
  }

  /**
   * The indexed file cut into ranges of whole lines of about `targetBytes` each, with the line
   * and row each starts at, once the file was read to its end.
   */
  async ranges(targetBytes: number): Promise<FileRanges> {
    await this.caughtUp();
    return this.rpc.request(
      (id) => ({ type: "ranges", id, targetBytes }),
      (reply, settle: (ranges: FileRanges) => void) => {
        if (reply.type === "ranges") settle(reply);
      },
    );
  }

  /**
   * Reads the table again through `mapping` (after the worker said it needs one, or to change
   * it once the table was read to its end): the index starts over.
   */
  applyMapping(mapping: ColumnMapping): void {
    const { table } = this.state;
    if (!table) throw new Error(`${this.source.name} is not a table that takes a column mapping`);
    this.rows.length = 0;
    this.errors.length = 0;
    this.update({
      table: { ...table, mapping },
      bytes: 0,
      lines: 0,
      format: undefined,
      rate: 0,
      caughtUp: false,
      failure: undefined,
    });
    this.fileSource = { ...this.fileSource, mapping };
    this.rpc.send({ type: "open", source: this.fileSource, tail: this.state.isTailing });
  }

  /** Stops or resumes polling a tailed file for new lines. */
  setPaused(isPaused: boolean): void {
    this.rpc.send({ type: "pause", paused: isPaused });
    this.update({ isPaused });
  }

  dispose(): void {
    this.rpc.dispose();
  }

  private update(patch: Partial<RolloutFileState>): void {
    this.state = { ...this.state, ...patch, version: this.state.version + 1 };
    for (const listener of this.listeners) listener();
  }

  /** Indexing progress and the indexer's own failure: messages that answer no request. */
  private handleNotice(reply: WorkerReply): void {
    if (reply.type === "error") {
      this.update({ failure: reply.message });
      return;
    }
    if (reply.type === "mapping-needed") {
      const { columns, suggested } = reply;
      this.update({ table: { columns, suggested, mapping: undefined } });
      return;
    }
    if (reply.type !== "progress") return;
    const { state } = this;
    const isIdlePoll =
      reply.rows.length === 0 &&
      reply.errors.length === 0 &&
      reply.bytes === state.bytes &&
      reply.totalBytes === state.totalBytes &&
      reply.caughtUp === state.caughtUp;
    // A tailed file is polled every second: a poll that found nothing new changes nothing.
    if (isIdlePoll) return;
    for (const row of reply.rows) this.rows.push(row);
    for (const error of reply.errors) this.errors.push(error);
    this.update({
      bytes: reply.bytes,
      totalBytes: reply.totalBytes,
      lines: reply.lines,
      unit: reply.unit ?? "line",
      format: reply.format,
      rate: reply.elapsedMs > 0 ? (reply.bytes / reply.elapsedMs) * 1000 : 0,
      caughtUp: reply.caughtUp,
    });
  }
}

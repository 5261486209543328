import { type ResourceLimits, type Transferable, Worker } from "node:worker_threads";
import { IS_COMPILED } from "../paths";
import type { WorkerMessage } from "./workerServe";

/*
 * The one RPC of the server's worker threads (drift checks, step statistics, Parquet reads), with
 * crash handling (docs/architecture.md "Worker threads"). A worker runs one call at a time; calls
 * wait in the pool, so a call never shares its worker with another file's work. A worker that
 * throws, exits, is killed, runs past a call's time budget or outgrows its memory limit fails its
 * call with an error naming what it was doing (the call's label: a file and a range) and is
 * replaced by a fresh one for the next call.
 */

/** A worker thread's entry, by its base name: `drift.worker` for server/drift/drift.worker.ts. */
export function workerUrl(folder: string, entry: string): URL {
  // Compiled, every entry sits directly in lib/ (scripts/buildServer.ts).
  if (IS_COMPILED) return new URL(`./${entry}.js`, import.meta.url);
  // From source the worker runs TypeScript through tsx like the CLI does: a tiny ESM bootstrap
  // registers the loader, then imports the real entry.
  const href = new URL(`../${folder}/${entry}.ts`, import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

/** A worker call that did not complete because its worker failed (crash, budget, kill). */
export class WorkerFailure extends Error {
  override readonly name = "WorkerFailure";
}

export interface WorkerPoolOptions {
  /** What the workers do, for messages: "drift", "step statistics", "Parquet reader". */
  readonly name: string;
  readonly url: URL;
  readonly size: number;
  readonly workerData?: unknown;
  /** Per-worker memory limits: a worker over them ends (and is replaced), not the process. */
  readonly resourceLimits?: ResourceLimits;
  /**
   * Let a process exit while its workers are up and idle (the server's background work, a CLI
   * command's readers); a worker running a call keeps the process alive until it answers.
   */
  readonly unref?: boolean;
}

export interface CallOptions {
  /** What the call reads, for errors: "run/step_3.parquet row group 2 (rows 201–300)". */
  readonly label: string;
  /** Time the call may take once its worker starts it; past it the worker is terminated. */
  readonly budgetMs?: number;
  readonly transfer?: readonly Transferable[];
  /** Pieces of the result the worker passes on while the call runs (`postPartial`), in order. */
  readonly onPartial?: (value: unknown) => void;
}

export interface WorkerPool<Request, Result> {
  call(request: Request, options: CallOptions): Promise<Result>;
  /**
   * Starts every worker not yet started; resolves when each is ready to take a call or has
   * failed to start (a call then fails as it would have).
   */
  warm(): Promise<void>;
  /**
   * Terminates a busy worker, as a crash would (tests; a caller that gave up); with `running`,
   * only one that has started its call (not one still loading).
   */
  kill(running?: boolean): Promise<boolean>;
  close(): Promise<void>;
}

interface Job<Request, Result> {
  readonly request: Request;
  readonly options: CallOptions;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: Error) => void;
}

/** One worker of the pool and the call it runs. */
interface Slot {
  worker: Worker | undefined;
  ready: Promise<void> | undefined;
  /** The running call: its id and how it settles. */
  current:
    | { readonly id: number; readonly settle: (reply: WorkerMessage | Error) => void }
    | undefined;
  /** Where the running call has got to, as its worker reported (`progress`). */
  at: string | undefined;
  /** The running call's `onPartial`. */
  onPartial: ((value: unknown) => void) | undefined;
  /** True once the running call was handed to a started worker. */
  isRunning: boolean;
}

function startWorker(options: WorkerPoolOptions, slot: Slot): Worker {
  const worker = new Worker(options.url, {
    workerData: options.workerData,
    ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
  });
  slot.worker = worker;
  const gone = (reason: string) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.ready = undefined;
    slot.current?.settle(new Error(reason));
  };
  slot.ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (message: WorkerMessage) => {
      if ("ready" in message) resolve();
      else if ("progress" in message) slot.at = message.progress;
      else if ("partial" in message) slot.onPartial?.(message.partial);
      else if (slot.current?.id === message.id) slot.current.settle(message);
    });
    worker.on("error", (error) => {
      reject(error);
      const oom = (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY";
      gone(oom ? "ran out of its memory limit" : `threw: ${error.message}`);
    });
    worker.on("exit", (code) => {
      reject(new Error(`exited (code ${code})`));
      gone(`exited (code ${code})`);
    });
  });
  // A worker that fails to start fails the call waiting for it, through `gone`.
  slot.ready.catch(() => {});
  // After the listeners: adding a "message" listener refs the worker again.
  if (options.unref) worker.unref();
  return worker;
}

/** Runs one job on `slot`'s worker (started when there is none), within the job's budget. */
function runJob<Request, Result>(
  options: WorkerPoolOptions,
  slot: Slot,
  job: Job<Request, Result>,
  id: number,
): Promise<void> {
  const { label, budgetMs, transfer } = job.options;
  return new Promise<void>((done) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    slot.at = undefined;
    slot.onPartial = job.options.onPartial;
    slot.current = {
      id,
      settle: (reply) => {
        if (slot.current?.id !== id) return;
        slot.current = undefined;
        slot.onPartial = undefined;
        slot.isRunning = false;
        clearTimeout(timer);
        // Idle again: an unref'd pool no longer keeps the process alive.
        if (options.unref) slot.worker?.unref();
        if (reply instanceof Error) {
          const at = slot.at === undefined ? "" : ` (at ${slot.at})`;
          const what = `${options.name} worker ${reply.message} while reading ${label}${at}`;
          job.reject(new WorkerFailure(what));
        } else if ("ok" in reply && reply.ok) job.resolve(reply.result as Result);
        else job.reject(new Error("message" in reply ? reply.message : "worker error"));
        done();
      },
    };
    const worker = slot.worker ?? startWorker(options, slot);
    // A call keeps the process alive until its reply (its worker's start-up included), even on
    // an unref'd pool.
    worker.ref();
    const ready = slot.ready ?? Promise.resolve();
    ready.then(
      () => {
        if (slot.current?.id !== id) return;
        if (budgetMs !== undefined) {
          timer = setTimeout(() => {
            const span = budgetMs < 1000 ? `${budgetMs} ms` : `${Math.round(budgetMs / 1000)} s`;
            const over = `ran past its ${span} budget`;
            slot.current?.settle(new Error(over));
            slot.worker = undefined;
            slot.ready = undefined;
            void worker.terminate();
          }, budgetMs);
        }
        worker.postMessage({ id, request: job.request }, [...(transfer ?? [])]);
        slot.isRunning = true;
      },
      () => {},
    );
  });
}

/** Starts a pool of `size` workers (each started on first use, replaced after a failure). */
export function createWorkerPool<Request, Result>(
  options: WorkerPoolOptions,
): WorkerPool<Request, Result> {
  const slots: Slot[] = Array.from({ length: Math.max(1, options.size) }, () => ({
    worker: undefined,
    ready: undefined,
    current: undefined,
    at: undefined,
    onPartial: undefined,
    isRunning: false,
  }));
  const queue: Job<Request, Result>[] = [];
  let nextId = 0;
  let closed = false;
  const pump = () => {
    for (const slot of slots) {
      if (slot.current || queue.length === 0) continue;
      const job = queue.shift();
      if (job) void runJob(options, slot, job, nextId++).then(pump);
    }
  };
  const pool: WorkerPool<Request, Result> = {
    call(request, callOptions) {
      if (closed) return Promise.reject(new Error(`${options.name} workers are closed`));
      return new Promise<Result>((resolve, reject) => {
        queue.push({ request, options: callOptions, resolve, reject });
        pump();
      });
    },
    async warm() {
      if (closed) return;
      const starting = slots.map((slot) => {
        if (!slot.worker) startWorker(options, slot);
        return slot.ready?.catch(() => {});
      });
      await Promise.all(starting);
    },
    async kill(running = false) {
      const busy = slots.find((s) => s.current && s.worker && (!running || s.isRunning));
      if (!busy?.worker) return false;
      await busy.worker.terminate();
      return true;
    },
    async close() {
      closed = true;
      livePools.delete(named);
      for (const job of queue.splice(0)) job.reject(new Error(`${options.name} workers closed`));
      await Promise.all(slots.map((s) => s.worker?.terminate()));
    },
  };
  const named = { name: options.name, pool };
  livePools.add(named);
  return pool;
}

/**
 * `createWorkerPool` made on the first call and made again after `close`: the server's background
 * readers and encoders, closed at shutdown (or by a test) and used again by the next request.
 */
export function createLazyWorkerPool<Request, Result>(
  options: WorkerPoolOptions,
): WorkerPool<Request, Result> {
  let pool: WorkerPool<Request, Result> | undefined;
  return {
    call(request, callOptions) {
      pool ??= createWorkerPool<Request, Result>(options);
      return pool.call(request, callOptions);
    },
    warm() {
      pool ??= createWorkerPool<Request, Result>(options);
      return pool.warm();
    },
    kill: async (running) => (pool ? pool.kill(running) : false),
    async close() {
      await pool?.close();
      pool = undefined;
    },
  };
}

/** The pools not yet closed, by name: what `killBusyWorker` looks through. */
const livePools = new Set<{ readonly name: string; readonly pool: WorkerPool<unknown, unknown> }>();

/**
 * Terminates a worker of a live pool named `name` ("drift", "scan") that is running a call, as a
 * crash or the OOM killer would; false when none is. For tests of a whole command's crash handling.
 */
export async function killBusyWorker(name: string): Promise<boolean> {
  for (const live of livePools) {
    if (live.name === name && (await live.pool.kill(true))) return true;
  }
  return false;
}

import type { ShardedInput } from "../commands/shardInputs";
import { createWorkerPool, WorkerFailure, workerUrl } from "../workers/workerPool";
import type { ScanRequest } from "./scanProtocol";

/*
 * The Node runner of the scanning commands (docs/architecture.md "Worker threads"): their inputs
 * are `shardInputs`' files (globs, directories, `--shard`), each a unit of work; with `--jobs N`
 * the units run on N worker threads of the one pool RPC (server/workers/workerPool.ts), else in
 * process, through the same function. Results come out in input order as they arrive, so a
 * streamed `--json` writes each file's rows while later files are still being read.
 */

/** Where a unit's results go, in input order: its pieces as they come, then its end. */
export interface UnitSink<Part, Done> {
  part(unit: ShardedInput, part: Part): void;
  done(unit: ShardedInput, done: Done): void;
}

/**
 * Runs one unit on `lane` (0 to concurrency - 1); `onPart` gets its pieces in order. Never
 * rejects: failures are in `Done`.
 */
export type RunUnit<Part, Done> = (
  unit: ShardedInput,
  onPart: (part: Part) => void,
  lane: number,
) => Promise<Done>;

/**
 * Runs `units` `concurrency` at a time and hands their results to `sink` in input order: the
 * pieces of the first unreported unit pass straight through, those of later units wait (only
 * they are held) until every unit before them has ended. A lane takes its first unit once
 * `laneReady(lane)` resolves (a worker lane: once its worker has started), so a lane still
 * starting holds no unit that a lane already running could take.
 */
export async function runInOrder<Part, Done>(
  units: readonly ShardedInput[],
  concurrency: number,
  run: RunUnit<Part, Done>,
  sink: UnitSink<Part, Done>,
  laneReady?: (lane: number) => Promise<void>,
): Promise<void> {
  const held = units.map(() => ({
    parts: [] as Part[],
    done: undefined as { value: Done } | undefined,
  }));
  let head = 0;
  let next = 0;
  const drain = () => {
    for (let at = held[head]; at !== undefined; at = held[head]) {
      const unit = units[head] as ShardedInput;
      for (const part of at.parts.splice(0)) sink.part(unit, part);
      if (at.done === undefined) return;
      const { value } = at.done;
      at.done = undefined; // handed on: not held for the rest of the run
      head += 1;
      sink.done(unit, value);
    }
  };
  let ended = 0;
  let allEnded = () => {};
  const everyUnitEnded = new Promise<void>((resolve) => {
    allEnded = resolve;
  });
  const work = async (lane: number) => {
    await laneReady?.(lane);
    while (next < units.length) {
      const k = next++;
      const unit = units[k] as ShardedInput;
      const slot = held[k] as (typeof held)[number];
      const value = await run(
        unit,
        (part) => {
          if (k === head) sink.part(unit, part);
          else slot.parts.push(part);
        },
        lane,
      );
      slot.done = { value };
      drain();
      if (++ended === units.length) allEnded();
    }
  };
  const lanes = Math.max(1, Math.min(concurrency, units.length));
  const working = Promise.all(Array.from({ length: lanes }, (_, lane) => work(lane)));
  // Done when every unit has ended: a lane still starting (a worker loading) is not waited for.
  await Promise.race([working, everyUnitEnded]);
}

/** What a unit is called in a worker's failure: its file, and the byte range of a shard. */
export function unitLabel(unit: ShardedInput): string {
  const range = unit.shard;
  return range === undefined ? unit.path : `${unit.path} bytes ${range.start}–${range.end}`;
}

/** The scan workers of one run: each unit a call, its pieces passed on as they come. */
export interface ScanWorkers {
  /** Whether units of `lane` run on a worker (lane 0 runs in process). */
  isWorkerLane(lane: number): boolean;
  /** Resolves when `lane` can start a unit: at once in process, else once the workers are up. */
  laneReady(lane: number): Promise<void>;
  /** `Part` and `Done` are what the worker's handler of `request.kind` posts and returns. */
  run<Part, Done>(request: ScanRequest, onPart: (part: Part) => void): Promise<Done>;
  close(): Promise<void>;
}

/**
 * The scan workers of a `--jobs` run: `jobs - 1` worker threads, the main thread being lane 0
 * (it scans too: each worker costs its own start-up, module loading and heap, which made
 * `--jobs 2` on two workers slower than `--jobs 1` on a 2-core machine). The main thread starts
 * at once; a worker lane takes units once the workers have started, so a single file, or files
 * the main thread finishes first, never wait for a worker to load. Undefined for one job.
 * "scan" names them in a failure's message: `scan worker exited …`.
 */
export function createScanWorkers(jobs: number): ScanWorkers | undefined {
  if (jobs < 2) return undefined;
  const pool = createWorkerPool<ScanRequest, unknown>({
    name: "scan",
    url: workerUrl("scan", "scan.worker"),
    size: jobs - 1,
  });
  const isWorkerLane = (lane: number) => lane > 0;
  return {
    isWorkerLane,
    laneReady: (lane) => (isWorkerLane(lane) ? pool.warm() : Promise.resolve()),
    // The worker answers each kind with that kind's pieces and result (scan.worker.ts).
    run: <Part, Done>(request: ScanRequest, onPart: (part: Part) => void) =>
      pool.call(request, {
        label: unitLabel(request.unit),
        onPartial: (value) => onPart(value as Part),
      }) as Promise<Done>,
    close: () => pool.close(),
  };
}

/** The message of a unit's failure: a worker that died names the file; other errors as they are. */
export function failureMessage(error: unknown): string {
  if (error instanceof WorkerFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}

import { parentPort, type Transferable } from "node:worker_threads";

/*
 * The worker side of workerPool.ts: a worker thread's entry calls serveWorker with its handler and
 * answers one call at a time. Messages from the worker: `ready` once, `progress` while a call runs
 * (where it has got to, named in the error if the worker then fails), `partial` pieces of its
 * result while it runs, and one reply per call.
 */

export type WorkerMessage =
  | { readonly ready: true }
  | { readonly progress: string }
  | { readonly partial: unknown }
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Tells the pool where the running call has got to ("row group 3", "line 1200"). */
export function reportProgress(at: string): void {
  parentPort?.postMessage({ progress: at } satisfies WorkerMessage);
}

/**
 * Passes a piece of the running call's result on before the call ends (the rows a scan has read
 * so far), so the caller can write it out and the worker need not hold it (`onPartial`).
 */
export function postPartial(value: unknown): void {
  parentPort?.postMessage({ partial: value } satisfies WorkerMessage);
}

/**
 * Answers the pool's calls with `handle` (its result posted with `transfer` of it, if given); a
 * call that throws is answered with its message. Posts `ready` first.
 */
export function serveWorker<Request, Result>(
  handle: (request: Request) => Result | Promise<Result>,
  transfer?: (result: Result) => readonly Transferable[],
): void {
  const port = parentPort;
  if (!port) throw new Error("a worker entry must run as a worker thread");
  port.on("message", async ({ id, request }: { id: number; request: Request }) => {
    try {
      const result = await handle(request);
      port.postMessage({ id, ok: true, result } satisfies WorkerMessage, [
        ...(transfer?.(result) ?? []),
      ]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      port.postMessage({ id, ok: false, message } satisfies WorkerMessage);
    }
  });
  port.postMessage({ ready: true } satisfies WorkerMessage);
}

import type { FileDriftScan } from "../core/drift/fileDriftScan";
import type { DriftMode } from "../core/drift/types";
import type { Tokenizer } from "../core/tokenizer/types";
import type { Trajectory } from "../core/trajectory/types";
import type { DriftRequest, DriftResponse, ScanProgress, TrajectoryDrift } from "./driftProtocol";
import type { RolloutFileSource } from "./rolloutFileProtocol";

/** What the client needs from a worker; `startWorker` adapts a real one, tests pass a fake. */
export interface DriftWorkerPort {
  post(request: DriftRequest): void;
  listen(onResponse: (response: DriftResponse) => void, onCrash: (reason: string) => void): void;
  terminate(): void;
}

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
  dispose(): void;
}

async function loadFromServer(name: string): Promise<Tokenizer> {
  const { loadTokenizerInBrowser } = await import("../tokenizer/loadTokenizerInBrowser");
  return loadTokenizerInBrowser(name);
}

function startWorker(): DriftWorkerPort | undefined {
  if (typeof Worker === "undefined") return undefined;
  // Vite bundles the worker because the URL is written inline here.
  const worker = new Worker(new URL("./drift.worker.ts", import.meta.url), {
    type: "module",
    name: "drift",
  });
  return {
    post: (request) => worker.postMessage(request),
    listen(onResponse, onCrash) {
      worker.onmessage = (event: MessageEvent<DriftResponse>) => onResponse(event.data);
      // Module load failures come with an empty message.
      worker.onerror = (event) => onCrash(event.message || "the worker script failed to run");
      worker.onmessageerror = () => onCrash("a drift worker message could not be read");
    },
    terminate: () => worker.terminate(),
  };
}

interface Waiter {
  readonly onResponse: (response: DriftResponse) => void;
  readonly fail: (error: Error) => void;
}

export interface DriftClientOptions {
  /** The worker to talk to; undefined runs the service on the main thread. */
  readonly port: DriftWorkerPort | undefined;
  /** How the main-thread fallback loads a tokenizer (default: from our server). */
  readonly load?: (name: string) => Promise<Tokenizer>;
}

/**
 * Promise API over the drift worker. Without Worker support (or with `port: undefined`) the same
 * service runs on the main thread, answering through the same messages.
 */
export function createDriftClient(
  options: DriftClientOptions = { port: startWorker() },
): DriftClient {
  const { port, load = loadFromServer } = options;
  const waiters = new Map<number, Waiter>();
  let nextId = 1;
  let crash: string | undefined;
  const deliver = (response: DriftResponse) => {
    const waiter = waiters.get(response.id);
    if (waiter) waiter.onResponse(response);
  };
  let send: (request: DriftRequest) => void;
  if (port) {
    port.listen(deliver, (reason) => {
      // A crashed worker cannot answer: fail every open and later request instead of hanging.
      crash = `drift worker failed: ${reason}`;
      for (const waiter of waiters.values()) waiter.fail(new Error(crash));
      waiters.clear();
    });
    send = (request) => port.post(request);
  } else {
    // Loaded on first use so the main bundle does not carry the tokenizer libraries.
    const service = import("./driftService").then((m) => m.createDriftService(load));
    send = (request) => {
      void service.then((s) => s.handle(request, deliver));
    };
  }

  function request<T>(
    build: (id: number) => DriftRequest,
    onResponse: (response: DriftResponse, settle: (value: T) => void) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (crash !== undefined) return reject(new Error(crash));
      const id = nextId++;
      const fail = (error: Error) => {
        waiters.delete(id);
        reject(error);
      };
      const settle = (value: T) => {
        waiters.delete(id);
        resolve(value);
      };
      waiters.set(id, {
        fail,
        onResponse: (response) => {
          if (response.type === "error") fail(new Error(response.message));
          else onResponse(response, settle);
        },
      });
      send(build(id));
    });
  }

  return {
    check: (tokenizer, trajectory, modes) =>
      request<TrajectoryDrift>(
        (id) => ({ type: "check", id, tokenizer, trajectory, modes }),
        (response, settle) => {
          if (response.type === "checked") settle(response.drift);
        },
      ),
    scan(tokenizer, source, mode, onProgress, signal) {
      let scanId = 0;
      const handleAbort = () => send({ type: "cancel", id: scanId });
      const promise = request<FileDriftScan>(
        (id) => {
          scanId = id;
          return { type: "scan", id, tokenizer, source, mode };
        },
        (response, settle) => {
          if (response.type === "progress") onProgress(response);
          else if (response.type === "scanned") settle(response.scan);
        },
      );
      signal?.addEventListener("abort", handleAbort, { once: true });
      return promise.finally(() => signal?.removeEventListener("abort", handleAbort));
    },
    dispose: () => port?.terminate(),
  };
}

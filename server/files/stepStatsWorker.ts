import { Worker } from "node:worker_threads";
import type { StepStats } from "../../src/core/files/stepStats";
import { IS_COMPILED } from "../paths";

export interface StepStatsRequest {
  readonly id: number;
  readonly path: string;
  /** `--map SPEC` the file is read through. */
  readonly map?: string;
}

type StepStatsReply =
  | { readonly id: number; readonly ok: true; readonly stats: StepStats }
  | { readonly id: number; readonly ok: false; readonly message: string };

// As server/drift/driftPool.ts: from source the worker runs through tsx, compiled it is lib/'s entry.
function workerUrl(): URL {
  if (IS_COMPILED) return new URL("./stepStats.worker.js", import.meta.url);
  const entry = new URL("./stepStats.worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

export interface StepStatsWorker {
  compute(path: string, map?: string): Promise<StepStats>;
  close(): Promise<void>;
}

/**
 * One worker thread, started on the first request, that computes step statistics; it stays up
 * (holding its tokenizer) and is unref'd, so an idle server can still exit.
 */
export function createStepStatsWorker(): StepStatsWorker {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, (reply: StepStatsReply) => void>();
  const start = (): Worker => {
    const w = new Worker(workerUrl());
    w.unref();
    w.on("message", (reply: StepStatsReply) => {
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
    });
    const fail = (message: string) => {
      for (const [id, resolve] of waiting) resolve({ id, ok: false, message });
      waiting.clear();
      worker = undefined;
    };
    w.on("error", (error) => fail(`step statistics worker: ${error.message}`));
    w.on("exit", (code) => fail(`step statistics worker exited (${code})`));
    return w;
  };
  return {
    async compute(path, map) {
      worker ??= start();
      const id = nextId++;
      const target = worker;
      const reply = await new Promise<StepStatsReply>((resolve) => {
        waiting.set(id, resolve);
        target.postMessage({ id, path, map } satisfies StepStatsRequest);
      });
      if (!reply.ok) throw new Error(reply.message);
      return reply.stats;
    },
    async close() {
      await worker?.terminate();
      worker = undefined;
    },
  };
}

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLazyWorkerPool,
  createWorkerPool,
  WorkerFailure,
  type WorkerPool,
} from "./workerPool";

/**
 * A worker speaking workerServe's protocol in plain JS: "echo" answers, "throw" fails the call,
 * "loop" never returns, "exit" ends the thread, "crash" throws outside any call, "grow" allocates
 * until its memory limit.
 */
const TEST_WORKER = `
import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ id, request }) => {
  if (request === "loop") { parentPort.postMessage({ progress: "the loop" }); for (;;) {} }
  if (request === "exit") process.exit(3);
  if (request === "crash") setTimeout(() => { throw new Error("boom outside a call"); });
  if (request === "grow") { const keep = []; for (;;) keep.push(new Array(1e6).fill(keep.length)); }
  if (request === "parts") { parentPort.postMessage({ partial: 1 }); parentPort.postMessage({ partial: 2 }); }
  if (request === "throw") parentPort.postMessage({ id, ok: false, message: "bad input" });
  else if (request !== "crash") parentPort.postMessage({ id, ok: true, result: request });
});
parentPort.postMessage({ ready: true });
`;
const url = new URL(`data:text/javascript,${encodeURIComponent(TEST_WORKER)}`);

let pool: WorkerPool<string, string> | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

const start = (size = 1) => {
  pool = createWorkerPool<string, string>({
    name: "test",
    url,
    size,
    resourceLimits: { maxOldGenerationSizeMb: 64 },
  });
  return pool;
};

describe("worker pool", () => {
  it("a lazy pool starts on its first call and starts again after close; a closed pool refuses", async () => {
    const options = { name: "test", url, size: 1 };
    const lazy = createLazyWorkerPool<string, string>(options);
    pool = lazy;
    expect(await lazy.kill()).toBe(false);
    expect(await lazy.call("one", { label: "a.jsonl" })).toBe("one");
    await lazy.close();
    expect(await lazy.call("two", { label: "a.jsonl" })).toBe("two");
    const plain = createWorkerPool<string, string>(options);
    await plain.close();
    await expect(plain.call("three", { label: "a.jsonl" })).rejects.toThrow();
  });

  it("warms its workers before any call; a worker that cannot start still lets warm end", async () => {
    const p = start(2);
    await p.warm();
    // Both workers are up: a call that ends its worker fails, the other answers.
    const [echo, exit] = await Promise.allSettled([
      p.call("echo", { label: "a.jsonl" }),
      p.call("exit", { label: "b.jsonl" }),
    ]);
    expect(echo).toEqual({ status: "fulfilled", value: "echo" });
    expect(exit.status).toBe("rejected");
    const broken = createWorkerPool<string, string>({
      name: "test",
      url: new URL(`data:text/javascript,${encodeURIComponent("throw new Error('no start')")}`),
      size: 1,
    });
    await broken.warm();
    await expect(broken.call("echo", { label: "c.jsonl" })).rejects.toThrow(WorkerFailure);
    await broken.close();
  });

  it("passes a call's pieces on, in order, before its result", async () => {
    const p = start();
    const parts: unknown[] = [];
    const result = await p.call("parts", { label: "a.jsonl", onPartial: (v) => parts.push(v) });
    expect([parts, result]).toEqual([[1, 2], "parts"]);
  });

  it("answers calls and passes a call's own error on without replacing the worker", async () => {
    const p = start();
    expect(await p.call("echo", { label: "a.jsonl" })).toBe("echo");
    await expect(p.call("throw", { label: "a.jsonl" })).rejects.toThrow("bad input");
    expect(await p.call("again", { label: "a.jsonl" })).toBe("again");
  });

  it("ends a call past its budget, naming file, range and progress, and goes on with a fresh worker", async () => {
    const p = start();
    const started = Date.now();
    const stuck = p.call("loop", { label: "bad.parquet row group 2 (rows 3–4)", budgetMs: 300 });
    await expect(stuck).rejects.toThrow(
      "test worker ran past its 300 ms budget while reading bad.parquet row group 2 (rows 3–4) (at the loop)",
    );
    await expect(stuck).rejects.toBeInstanceOf(WorkerFailure);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await p.call("next", { label: "good.jsonl" })).toBe("next");
  });

  it("fails the pending call of a worker that exits, crashes or outgrows its memory, then replaces it", async () => {
    const p = start();
    await expect(p.call("exit", { label: "x.jsonl lines 1–9" })).rejects.toThrow(
      "test worker exited (code 3) while reading x.jsonl lines 1–9",
    );
    await expect(p.call("crash", { label: "y.jsonl" })).rejects.toThrow(
      "test worker threw: boom outside a call while reading y.jsonl",
    );
    await expect(p.call("grow", { label: "z.parquet" })).rejects.toThrow(
      "test worker ran out of its memory limit while reading z.parquet",
    );
    expect(await p.call("after", { label: "ok.jsonl" })).toBe("after");
  });

  it("runs one call per worker, so a stuck file never holds the others back", async () => {
    const p = start(2);
    const stuck = p.call("loop", { label: "bad.parquet", budgetMs: 2000 });
    const others = await Promise.all(
      ["a", "b", "c", "d"].map((name) => p.call(name, { label: `${name}.jsonl` })),
    );
    expect(others).toEqual(["a", "b", "c", "d"]);
    await expect(stuck).rejects.toBeInstanceOf(WorkerFailure);
  });

  it("fails the call of a worker killed mid-call", async () => {
    const p = start();
    const running = p.call("loop", { label: "big.jsonl lines 1–128" });
    await new Promise((r) => setTimeout(r, 200));
    expect(await p.kill()).toBe(true);
    await expect(running).rejects.toThrow(
      /^test worker exited \(code 1\) while reading big\.jsonl lines 1–128/,
    );
    expect(await p.call("alive", { label: "c.jsonl" })).toBe("alive");
  });

  it("an unref'd pool keeps its process alive for a call's reply, then lets it exit", () => {
    // `validate` of a Parquet file printed its report and then never exited.
    const tsx = createRequire(import.meta.url).resolve("tsx/esm");
    const script = fileURLToPath(
      new URL("../../test-support/workers/unrefPoolExit.ts", import.meta.url),
    );
    const run = spawnSync(process.execPath, ["--import", tsx, script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("first\nsecond\n");
  }, 40_000);
});

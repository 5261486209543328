import { createWorkerPool } from "../../server/workers/workerPool";

// A process whose only work is one call on an unref'd pool (a CLI command reading a Parquet file):
// it must stay alive for the reply (the worker's start-up included) and then exit on its own.
const WORKER = `
import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ id, request }) => {
  setTimeout(() => parentPort.postMessage({ id, ok: true, result: request }), 200);
});
parentPort.postMessage({ ready: true });
`;
const pool = createWorkerPool<string, string>({
  name: "test",
  url: new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`),
  size: 1,
  unref: true,
});
process.stdout.write(`${await pool.call("first", { label: "a" })}\n`);
process.stdout.write(`${await pool.call("second", { label: "a" })}\n`);

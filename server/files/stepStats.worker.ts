// Worker-thread entry: computes step files' statistics (server/files/stepStats.ts) off the server's
// event loop. Holds its drift tokenizers (loaded on first use) for every file it is given.
import { parentPort } from "node:worker_threads";
import { parseMapSpec } from "../../src/core/formats/columnMapping";
import { createDriftTokenizers } from "../drift/driftTokenizers";
import { computeStepStats } from "./stepStats";
import type { StepStatsRequest } from "./stepStatsWorker";

const port = parentPort;
if (!port) throw new Error("stepStats.worker must run as a worker thread");
const tokenizers = createDriftTokenizers({ jobs: 1 });
port.on("message", async (request: StepStatsRequest) => {
  try {
    const parsed = request.map === undefined ? undefined : parseMapSpec(request.map);
    if (parsed && !parsed.ok) throw new Error(`--map: ${parsed.message}`);
    const stats = await computeStepStats(request.path, tokenizers, parsed?.mapping);
    port.postMessage({ id: request.id, ok: true, stats });
  } catch (error) {
    port.postMessage({
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});

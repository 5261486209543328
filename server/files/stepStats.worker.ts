// Worker-thread entry: computes step files' statistics (server/files/stepStats.ts) off the server's
// event loop, one file per call of the pool's RPC (server/workers). Holds its drift tokenizers
// (loaded on first use) for every file it is given.
import { parseMapSpec } from "../../src/core/formats/columnMapping";
import { createDriftTokenizers } from "../drift/driftTokenizers";
import { serveWorker } from "../workers/workerServe";
import { computeStepStats } from "./stepStats";
import type { StepStatsRequest } from "./stepStatsWorker";

const tokenizers = createDriftTokenizers({ jobs: 1 });
serveWorker(async (request: StepStatsRequest) => {
  const parsed = request.map === undefined ? undefined : parseMapSpec(request.map);
  if (parsed && !parsed.ok) throw new Error(`--map: ${parsed.message}`);
  return computeStepStats(request.path, tokenizers, parsed?.mapping);
});

// Worker-thread entry: a thin shell around detectDrift. Loads the tokenizer (and its round-trip
// fast path, src/core/drift/roundTripPlan.ts) once, then answers batches of trajectories with their
// drift results through the pool's RPC (server/workers/workerServe.ts).
import { workerData } from "node:worker_threads";
import { detectDrift } from "../../src/core/drift/detectDrift";
import { roundTripPlanFor } from "../../src/core/drift/roundTripPlan";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import { serveWorker } from "../workers/workerServe";
import {
  type DriftWorkerRequest,
  driftWorkerDataSchema,
  unpackTrajectories,
} from "./driftProtocol";

const { tokenizer: name } = driftWorkerDataSchema.parse(workerData);
const tokenizer = await loadDriftTokenizer(name);
const { accelerator } = roundTripPlanFor(tokenizer);
serveWorker((request: DriftWorkerRequest) =>
  unpackTrajectories(request.packed).map((t) =>
    detectDrift(t, tokenizer, { modes: request.modes, accelerator }),
  ),
);

// Worker-thread entry: a thin shell around detectDrift. Loads the tokenizer (and its round-trip
// fast path, src/core/drift/roundTripPlan.ts) once, then answers batches of trajectories with their drift results.
import { parentPort, workerData } from "node:worker_threads";
import { detectDrift } from "../../src/core/drift/detectDrift";
import { roundTripPlanFor } from "../../src/core/drift/roundTripPlan";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import {
  type DriftWorkerRequest,
  driftWorkerDataSchema,
  unpackTrajectories,
} from "./driftProtocol";

const { tokenizer: name } = driftWorkerDataSchema.parse(workerData);
const tokenizer = await loadDriftTokenizer(name);
const { accelerator } = roundTripPlanFor(tokenizer);
const port = parentPort;
if (!port) throw new Error("drift.worker must run as a worker thread");
port.on("message", (request: DriftWorkerRequest) => {
  try {
    const results = unpackTrajectories(request.packed).map((t) =>
      detectDrift(t, tokenizer, { modes: request.modes, accelerator }),
    );
    port.postMessage({ id: request.id, ok: true, results });
  } catch (error) {
    port.postMessage({
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
port.postMessage({ ready: true });

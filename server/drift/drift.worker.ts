// Worker-thread entry: a thin shell around the core's runDriftChecks (src/core/drift/driftRules.ts).
// Loads the tokenizer (and its round-trip fast path, src/core/tokenizer/roundTripPlan.ts) once, then
// answers batches of trajectories with their verdicts through the pool's RPC (server/workers/workerServe.ts).
import { workerData } from "node:worker_threads";
import { runDriftChecks } from "../../src/core/drift/driftRules";
import { roundTripPlanFor } from "../../src/core/tokenizer/roundTripPlan";
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
    runDriftChecks(t, tokenizer, request.modes, accelerator),
  ),
);

// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadDriftTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { DriftRequest, DriftResponse } from "./driftProtocol";
import { createDriftService } from "./driftService";
import { serveRequests } from "./workerRpc";

declare const self: DedicatedWorkerGlobalScope;

// The compact tokenizer: each worker of a scan pool starts without parsing tokenizer.json.
const service = createDriftService((name) => loadDriftTokenizerInBrowser(name));
serveRequests<DriftRequest, DriftResponse>(self, service.handle);

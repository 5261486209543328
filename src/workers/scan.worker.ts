// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadDriftTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { ScanRequest, ScanResponse } from "./scanProtocol";
import { createScanService } from "./scanService";
import { serveRequests } from "./workerRpc";

declare const self: DedicatedWorkerGlobalScope;

// The compact tokenizer: each worker of a scan pool starts without parsing tokenizer.json.
const service = createScanService((name) => loadDriftTokenizerInBrowser(name));
serveRequests<ScanRequest, ScanResponse>(self, service.handle);

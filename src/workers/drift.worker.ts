// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { DriftRequest } from "./driftProtocol";
import { createDriftService } from "./driftService";

declare const self: DedicatedWorkerGlobalScope;

const service = createDriftService((name) => loadTokenizerInBrowser(name));

self.addEventListener("message", (event: MessageEvent<DriftRequest>) => {
  void service.handle(event.data, (response) => self.postMessage(response));
});

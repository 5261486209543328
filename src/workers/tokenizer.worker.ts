// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadDriftTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { TokenizerRequest, TokenizerResponse } from "../tokenizer/tokenizerProtocol";
import { createTokenizerService, transferablesOf } from "../tokenizer/tokenizerService";
import { serveRequests } from "./workerRpc";

declare const self: DedicatedWorkerGlobalScope;

// The compact form the server publishes (docs/drift.md): a few MB of typed arrays, read in
// milliseconds, instead of parsing tokenizer.json (seconds for Llama-3): the view's text arrives
// that much sooner. The library tokenizer stands in wherever the compact form cannot.
const service = createTokenizerService((name) => loadDriftTokenizerInBrowser(name));
serveRequests<TokenizerRequest, TokenizerResponse>(
  self,
  (request, reply) => void service.serve(request, reply),
  transferablesOf,
);

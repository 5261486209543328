// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { TokenizerRequest, TokenizerResponse } from "../tokenizer/tokenizerProtocol";
import { createTokenizerService, transferablesOf } from "../tokenizer/tokenizerService";
import { serveRequests } from "./workerRpc";

declare const self: DedicatedWorkerGlobalScope;

const service = createTokenizerService((name) => loadTokenizerInBrowser(name));
serveRequests<TokenizerRequest, TokenizerResponse>(
  self,
  (request, reply) => void service.handle(request).then(reply),
  transferablesOf,
);

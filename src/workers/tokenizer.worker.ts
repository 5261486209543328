// Thin shell: one long-lived module worker; the service keeps each tokenizer loaded once.
import { loadTokenizerInBrowser } from "../tokenizer/loadTokenizerInBrowser";
import type { TokenizerRequest } from "../tokenizer/tokenizerProtocol";
import { createTokenizerService, transferablesOf } from "../tokenizer/tokenizerService";

declare const self: DedicatedWorkerGlobalScope;

const service = createTokenizerService((name) => loadTokenizerInBrowser(name));

self.addEventListener("message", (event: MessageEvent<TokenizerRequest>) => {
  void service.handle(event.data).then((response) => {
    self.postMessage(response, transferablesOf(response));
  });
});

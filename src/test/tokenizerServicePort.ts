import type { Tokenizer } from "../core/tokenizer/types";
import type { TokenizerResponse } from "../tokenizer/tokenizerProtocol";
import { createTokenizerService, transferablesOf } from "../tokenizer/tokenizerService";
import type { WorkerPort } from "../workers/tokenizerClient";

/**
 * The tokenizer worker's service on `load` behind a port, messages cloned and transferred as
 * postMessage clones and transfers them.
 */
export function tokenizerServicePort(load: (name: string) => Promise<Tokenizer>): WorkerPort {
  const service = createTokenizerService(load);
  let deliver: (response: TokenizerResponse) => void = () => {};
  return {
    post(message, transfer) {
      const request = structuredClone(message, { transfer });
      void service.handle(request).then((response) => {
        deliver(structuredClone(response, { transfer: transferablesOf(response) }));
      });
    },
    listen(onResponse) {
      deliver = onResponse;
    },
    terminate() {},
  };
}

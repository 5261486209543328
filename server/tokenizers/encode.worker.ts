// Worker-thread entry: encodes long texts (a 1 MB prompt or tool result) off the server's event
// loop, with the same tokenizer files the server loaded (loadTokenizer, once per tokenizer).
import { serveWorker } from "../workers/workerServe";
import { loadTokenizer } from "./loadTokenizer";
import type { EncodeRequest } from "./offThreadEncoder";

serveWorker(
  async (request: EncodeRequest) => {
    const tokenizer = await loadTokenizer(request.tokenizer);
    return Int32Array.from(tokenizer.encode(request.text));
  },
  (ids) => [ids.buffer],
);

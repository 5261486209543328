import type { ScanWorkerPort } from "../workers/scanClient";
import type { ScanRequest, ScanResponse } from "../workers/scanProtocol";
import { createScanService } from "../workers/scanService";
import { createFakeTokenizer } from "./fakeTokenizer";

export const fakeTokenizer = createFakeTokenizer();

/** Loads the fake tokenizer as "fake"; any other name fails as a server 404 would. */
export const loadFakeTokenizer = async (name: string) => {
  if (name !== "fake") throw new Error(`tokenizer ${name}: answered 404`);
  return fakeTokenizer;
};

/** Runs the scan worker's service behind a port, cloning messages as postMessage does. */
export function fakeScanWorkerPort(): ScanWorkerPort & { readonly requests: ScanRequest[] } {
  const service = createScanService(loadFakeTokenizer);
  const requests: ScanRequest[] = [];
  let deliver: (response: ScanResponse) => void = () => {};
  return {
    requests,
    post(message) {
      requests.push(message);
      void service.handle(structuredClone(message), (r) => deliver(structuredClone(r)));
    },
    listen(onResponse) {
      deliver = onResponse;
    },
    terminate() {},
  };
}

// Worker-thread entry of the scanning commands' runner (scanRunner.ts): a thin shell that runs a
// unit of `mismatch` or `groups` with the same function as the in-process run, passing its pieces
// on as they come (workerServe's postPartial).
import { postPartial, serveWorker } from "../workers/workerServe";
import { groupsUnit } from "./groupsUnit";
import { mismatchUnit } from "./mismatchUnit";
import type { ScanRequest } from "./scanProtocol";

serveWorker<ScanRequest, unknown>((request) => {
  switch (request.kind) {
    case "mismatch":
      return mismatchUnit(request.unit, request.options, postPartial);
    case "groups":
      return groupsUnit(request.unit, request.options);
  }
});

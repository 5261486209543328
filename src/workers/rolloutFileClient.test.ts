import { describe, expect, it } from "vitest";
import { row } from "../test/rowSummaryBuilders";
import { modelSegment, trajectory } from "../test/trajectoryBuilders";
import { RolloutFileClient } from "./rolloutFileClient";
import type { WorkerReply, WorkerRequest } from "./rolloutFileProtocol";
import type { WorkerPort } from "./workerRpc";

/** A file worker played by the test: what the client sent, and a way to answer as the worker. */
function scriptedWorker() {
  const sent: WorkerRequest[] = [];
  let deliver: (reply: WorkerReply) => void = () => {};
  const port: WorkerPort<WorkerRequest, WorkerReply> = {
    post: (request) => sent.push(request),
    listen: (onMessage) => {
      deliver = onMessage;
    },
    terminate: () => {},
  };
  const progress = (rows: number[], extra: { caughtUp?: boolean } = {}): void =>
    deliver({
      type: "progress",
      bytes: 10,
      totalBytes: 100,
      lines: rows.length,
      rows: rows.map((i) => row(i)),
      errors: [],
      format: "slime",
      elapsedMs: 1,
      caughtUp: extra.caughtUp ?? false,
    });
  return { port, sent, progress, deliver: (reply: WorkerReply) => deliver(reply) };
}

const source = { kind: "http", name: "f.jsonl", infoUrl: "/api/files/f1", rangeUrl: "/r" } as const;
const reads = (sent: readonly WorkerRequest[]) => sent.filter((r) => r.type === "read");

describe("RolloutFileClient.readWhenIndexed", () => {
  it("asks the worker for the row the moment a progress message indexes it", async () => {
    const worker = scriptedWorker();
    const client = new RolloutFileClient(source, true, worker.port);
    const read = client.readWhenIndexed(2);
    await Promise.resolve();
    expect(reads(worker.sent)).toEqual([]);
    worker.progress([0, 1]);
    expect(reads(worker.sent)).toEqual([]);
    worker.progress([2]);
    await Promise.resolve();
    const [request] = reads(worker.sent);
    expect(request).toMatchObject({ type: "read", index: 2 });
    const answer = trajectory([modelSegment([1, 2, 3], 1)], { id: "row-2" });
    worker.deliver({ type: "trajectory", id: (request as { id: number }).id, trajectory: answer });
    expect(await read).toEqual(answer);
  });

  it("reads an indexed row at once, and never asks for a row the failed index did not reach", async () => {
    const worker = scriptedWorker();
    const client = new RolloutFileClient(source, true, worker.port);
    worker.progress([0]);
    void client.readWhenIndexed(0);
    await Promise.resolve();
    expect(reads(worker.sent)).toMatchObject([{ index: 0 }]);
    let settled = false;
    client.readWhenIndexed(5).then(
      () => (settled = true),
      () => (settled = true),
    );
    worker.deliver({ type: "error", message: "f.jsonl: the server stopped answering" });
    worker.progress([1]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reads(worker.sent)).toHaveLength(1);
    expect(settled).toBe(false);
    expect(client.getState().failure).toBe("f.jsonl: the server stopped answering");
  });
});

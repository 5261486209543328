import type { DriftVerdict } from "../../src/core/drift/driftRules";
import type { DriftMode } from "../../src/core/drift/types";
import type { Trajectory } from "../../src/core/trajectory/types";
import { createWorkerPool, workerUrl } from "../workers/workerPool";
import { type DriftWorkerRequest, packTrajectories } from "./driftProtocol";

/** Checks batches of trajectories on worker threads (each holds its own tokenizer and caches). */
export interface DriftPool {
  /**
   * The verdict of each trajectory (core/drift/driftRules.ts runDriftChecks); `label` names the batch (file and lines) in the error when
   * its worker fails (a crash, a kill: the batch rejects with a WorkerFailure and the worker is
   * replaced).
   */
  check(
    trajectories: readonly Trajectory[],
    modes: readonly DriftMode[],
    label?: string,
  ): Promise<DriftVerdict[]>;
  /** Terminates a worker that is checking a batch, as a crash would (tests). */
  kill?(): Promise<boolean>;
  close(): Promise<void>;
}

/** Names a batch by its trajectories' file and lines. */
function labelOf(trajectories: readonly Trajectory[]): string {
  const first = trajectories[0]?.source;
  const last = trajectories.at(-1)?.source;
  const lines =
    first?.line === last?.line ? `line ${first?.line}` : `lines ${first?.line}–${last?.line}`;
  return `${first?.path ?? "a file"} ${lines}`;
}

/** Starts `size` drift workers for a tokenizer name or folder. */
export function createDriftPool(tokenizer: string, size: number): DriftPool {
  const pool = createWorkerPool<DriftWorkerRequest, DriftVerdict[]>({
    name: "drift",
    url: workerUrl("drift", "drift.worker"),
    size,
    workerData: { tokenizer },
  });
  return {
    check(trajectories, modes, label) {
      const { packed, transfer } = packTrajectories(trajectories);
      return pool.call({ packed, modes }, { label: label ?? labelOf(trajectories), transfer });
    },
    kill: () => pool.kill(),
    close: () => pool.close(),
  };
}

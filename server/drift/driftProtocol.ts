import { z } from "zod";
import type { DriftMode, DriftResult } from "../../src/core/drift/types";
import type { Trajectory } from "../../src/core/trajectory/types";

export const driftWorkerDataSchema = z.object({ tokenizer: z.string() });

/** One batch of trajectories to check, tagged with a request id. */
export interface DriftWorkerRequest {
  readonly id: number;
  readonly trajectories: readonly Trajectory[];
  readonly modes: readonly DriftMode[];
}

/** The worker's answer: one result list per trajectory, or the error that stopped the batch. */
export type DriftWorkerReply =
  | { readonly id: number; readonly ok: true; readonly results: DriftResult[][] }
  | { readonly id: number; readonly ok: false; readonly message: string };

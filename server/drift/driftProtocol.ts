import { z } from "zod";
import type { DriftMode } from "../../src/core/drift/types";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";

export const driftWorkerDataSchema = z.object({ tokenizer: z.string() });

/**
 * A batch of trajectories in transferable form: every segment's token ids, loss mask and logprobs
 * concatenated into typed arrays (moved, not copied, to the worker), and the rest of each
 * trajectory (small) structured-cloned with those three fields left out. Structured-cloning the
 * per-token number arrays cost more than the drift scan itself.
 */
export interface PackedTrajectories {
  /** Trajectories with `tokenIds`, `lossMask` and `logprobs` of every segment emptied. */
  readonly shells: readonly Trajectory[];
  /** Tokens per segment, in shell and segment order. */
  readonly lengths: Int32Array;
  readonly tokenIds: Int32Array;
  readonly lossMask: Uint8Array;
  readonly logprobs: Float64Array;
  /** 1 where a logprob was recorded (0 stands for null). */
  readonly hasLogprob: Uint8Array;
}

/** Packs trajectories for a worker; `transfer` lists the buffers to move. */
export function packTrajectories(trajectories: readonly Trajectory[]): {
  packed: PackedTrajectories;
  transfer: ArrayBuffer[];
} {
  let segments = 0;
  let tokens = 0;
  for (const t of trajectories) {
    segments += t.segments.length;
    for (const s of t.segments) tokens += s.tokenIds.length;
  }
  const lengths = new Int32Array(segments);
  const tokenIds = new Int32Array(tokens);
  const lossMask = new Uint8Array(tokens);
  const logprobs = new Float64Array(tokens);
  const hasLogprob = new Uint8Array(tokens);
  let si = 0;
  let at = 0;
  const shells = trajectories.map((t): Trajectory => {
    const segs = t.segments.map((s): Segment => {
      const n = s.tokenIds.length;
      lengths[si++] = n;
      for (let k = 0; k < n; k++) {
        tokenIds[at + k] = s.tokenIds[k] ?? 0;
        lossMask[at + k] = s.lossMask[k] ?? 0;
        const lp = s.logprobs[k];
        if (lp !== null && lp !== undefined) {
          logprobs[at + k] = lp;
          hasLogprob[at + k] = 1;
        }
      }
      at += n;
      return { ...s, tokenIds: [], lossMask: [], logprobs: [] };
    });
    return { ...t, segments: segs };
  });
  return {
    packed: { shells, lengths, tokenIds, lossMask, logprobs, hasLogprob },
    transfer: [
      lengths.buffer,
      tokenIds.buffer,
      lossMask.buffer,
      logprobs.buffer,
      hasLogprob.buffer,
    ],
  };
}

/**
 * The trajectories `packTrajectories` packed, rebuilt (worker side). Loss masks and logprobs are
 * built on first read: the drift check only reads them for trajectories that drift.
 */
export function unpackTrajectories(packed: PackedTrajectories): Trajectory[] {
  let si = 0;
  let at = 0;
  return packed.shells.map((t): Trajectory => {
    const segs = t.segments.map((s): Segment => {
      const n = packed.lengths[si++] ?? 0;
      const from = at;
      at += n;
      const tokenIds: number[] = new Array(n);
      for (let k = 0; k < n; k++) tokenIds[k] = packed.tokenIds[from + k] ?? 0;
      let lossMask: (0 | 1)[] | undefined;
      let logprobs: (number | null)[] | undefined;
      return {
        ...s,
        tokenIds,
        get lossMask() {
          if (!lossMask) {
            lossMask = new Array(n);
            for (let k = 0; k < n; k++) lossMask[k] = packed.lossMask[from + k] === 1 ? 1 : 0;
          }
          return lossMask;
        },
        get logprobs() {
          if (!logprobs) {
            logprobs = new Array(n);
            for (let k = 0; k < n; k++) {
              const has = packed.hasLogprob[from + k] === 1;
              logprobs[k] = has ? (packed.logprobs[from + k] ?? 0) : null;
            }
          }
          return logprobs;
        },
      };
    });
    return { ...t, segments: segs };
  });
}

/** One batch of trajectories to check (a call of the drift worker pool, server/workers). */
export interface DriftWorkerRequest {
  readonly packed: PackedTrajectories;
  readonly modes: readonly DriftMode[];
}

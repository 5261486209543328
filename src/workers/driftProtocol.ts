import type { FileDriftScan } from "../core/drift/fileDriftScan";
import type { DriftMode, DriftResult } from "../core/drift/types";
import type { Trajectory } from "../core/trajectory/types";
import type { RolloutFileSource } from "./rolloutFileProtocol";

/**
 * Messages between `driftClient` and `drift.worker`. Every request carries an id; every answer
 * names it. A scan answers with `progress` messages, then `scanned` or `error`.
 */
export type DriftRequest =
  | {
      readonly type: "check";
      readonly id: number;
      readonly tokenizer: string;
      readonly trajectory: Trajectory;
      readonly modes: readonly DriftMode[];
    }
  | {
      readonly type: "scan";
      readonly id: number;
      readonly tokenizer: string;
      readonly source: RolloutFileSource;
      readonly mode: DriftMode;
    }
  | { readonly type: "cancel"; readonly id: number };

/** One trajectory's checks, with byte-correct display pieces of every recorded token. */
export interface TrajectoryDrift {
  readonly results: readonly DriftResult[];
  readonly pieces: readonly string[];
}

/** How far a file scan got, in bytes of the file and rows checked. */
export interface ScanProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  readonly rows: number;
}

export type DriftResponse =
  | { readonly type: "checked"; readonly id: number; readonly drift: TrajectoryDrift }
  | ({ readonly type: "progress"; readonly id: number } & ScanProgress)
  | { readonly type: "scanned"; readonly id: number; readonly scan: FileDriftScan }
  | { readonly type: "error"; readonly id: number; readonly message: string };

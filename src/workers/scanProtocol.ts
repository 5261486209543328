import type { ChosenTokenizer, FileDriftScan } from "../core/drift/fileDriftScan";
import type { RowDrift } from "../core/drift/rowDrift";
import type { DriftMode, DriftResult } from "../core/drift/types";
import type { ScanRange } from "../core/files/scanRanges";
import type { FormatId } from "../core/formats/types";
import type {
  MismatchCharts,
  MismatchScanOptions,
  RowMismatch,
} from "../core/mismatch/fileMismatch";
import type { Trajectory } from "../core/trajectory/types";
import type { RolloutFileSource } from "./rolloutFileProtocol";

/**
 * Messages between `scanClient` and `scan.worker` (drift checks, drift and mismatch file scans). Every request carries an id; every answer
 * names it. A scan answers with `progress` messages, then `scanned` or `error`; a range scan with
 * `rangeRows` messages, then `rangeScanned` or `error`.
 */
/** What a range of a file is scanned with: the tokenizer, the mode and the file's format. */
export interface DriftRangeJob {
  readonly tokenizer: string;
  /**
   * Set when the tokenizer was chosen for the file (from its first trajectory) rather than picked:
   * a record naming another tokenizer is then unchecked, as in `rollout-lens drift`.
   */
  readonly chosen?: ChosenTokenizer;
  readonly source: RolloutFileSource;
  readonly mode: DriftMode;
  /** The file's format, as its index fixed it (a range may not hold the first good line). */
  readonly format: FormatId | undefined;
}

export type ScanRequest =
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
  | ({
      /** One piece of a file, for a pool of scan workers (see scanPool.ts). */
      readonly type: "driftRange";
      readonly id: number;
      readonly range: ScanRange;
    } & DriftRangeJob)
  | {
      /** The mismatch of one piece of a file (no tokenizer needed), for the same pool. */
      readonly type: "mismatchRange";
      readonly id: number;
      readonly source: RolloutFileSource;
      readonly range: ScanRange;
      readonly format: FormatId | undefined;
      readonly options: MismatchScanOptions;
    }
  | {
      /** Start-up ahead of a scan: load the tokenizer and ready its round trip (see scanClients). */
      readonly type: "load";
      readonly id: number;
      readonly tokenizer: string;
    }
  | { readonly type: "cancel"; readonly id: number };

/** Rows a range scan checked since its previous message, and its bytes read so far. */
export interface RangeRows<Row = RowDrift> {
  /** Bytes of the range read so far. */
  readonly bytes: number;
  /** Rows by their position in the range (add the range's firstRow for the file's row index). */
  readonly from: number;
  readonly rows: readonly (Row | undefined)[];
}

/** How a mismatch range scan ended: its lines and the charts of its tokens. */
export interface MismatchRangeScanned {
  readonly lines: number;
  readonly badLines: number;
  readonly format: FormatId | undefined;
  readonly charts: MismatchCharts;
}

/** How a range scan ended. */
export interface RangeScanned {
  readonly lines: number;
  readonly badLines: number;
  /** Rows the check could not run on, by reason. */
  readonly unchecked: Readonly<Record<string, number>>;
  readonly roundTrip?: FileDriftScan["roundTrip"];
}

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

export type ScanResponse =
  | { readonly type: "checked"; readonly id: number; readonly drift: TrajectoryDrift }
  | ({ readonly type: "progress"; readonly id: number } & ScanProgress)
  | { readonly type: "scanned"; readonly id: number; readonly scan: FileDriftScan }
  | ({ readonly type: "rangeRows"; readonly id: number } & RangeRows)
  | ({ readonly type: "rangeScanned"; readonly id: number } & RangeScanned)
  | ({ readonly type: "mismatchRows"; readonly id: number } & RangeRows<RowMismatch>)
  | ({ readonly type: "mismatchScanned"; readonly id: number } & MismatchRangeScanned)
  | { readonly type: "loaded"; readonly id: number }
  | { readonly type: "error"; readonly id: number; readonly message: string };

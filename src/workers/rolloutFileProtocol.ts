import type { ExportFormat } from "../core/files/exportRows";
import type { RowSummary } from "../core/files/rowSummary";
import type { ScanRange } from "../core/files/scanRanges";
import type { LocatedForest } from "../core/forest/forestOf";
import type { ColumnMapping } from "../core/formats/columnMapping";
import type { FormatId, LineError } from "../core/formats/types";
import type { CorrectionChoice } from "../core/mismatch/corrections/registry";
import type { ReplaySummary } from "../core/mismatch/corrections/replay";
import type { Trajectory } from "../core/trajectory/types";

/** Where the worker reads a file's bytes from: a local File, or the server's byte-range endpoint. */
export type ByteFileSource =
  | { readonly kind: "blob"; readonly name: string; readonly blob: Blob }
  | {
      readonly kind: "http";
      readonly name: string;
      /** `GET {infoUrl}` answers `{size}`; `GET {rangeUrl}?start=&end=` answers the bytes. */
      readonly infoUrl: string;
      readonly rangeUrl: string;
    };

/** A file the worker reads: its bytes, and how its records are read. */
export type RolloutFileSource = ByteFileSource & {
  /**
   * How a table's columns map to a trajectory (a Parquet or JSON table no known producer wrote):
   * every worker that reads the file reads its records through it.
   */
  readonly mapping?: ColumnMapping;
  /**
   * A slime/miles rollout dump's train dumps (the server lists them beside it): their trainer
   * and reference lanes, advantages and entropy are joined to its samples.
   */
  readonly trainDumps?: readonly ByteFileSource[];
  /** A miles dashboard column file's rollout dump: its reward, status and group per sample. */
  readonly rolloutDump?: ByteFileSource;
};

/** The files read with a file to complete its records (the server lists them beside it). */
export type FileCompanions = Pick<RolloutFileSource, "trainDumps" | "rolloutDump">;

/** Main thread → worker. `id` pairs a reply with its request (see workerRpc). */
export type WorkerRequest =
  | { readonly type: "open"; readonly source: RolloutFileSource; readonly tail: boolean }
  | { readonly type: "read"; readonly id: number; readonly index: number }
  | {
      readonly type: "export";
      readonly id: number;
      readonly indices: readonly number[];
      readonly format: ExportFormat;
    }
  | { readonly type: "pause"; readonly paused: boolean }
  /** The forest of the rows at `indices` (one group, in file order), keyed `key`. */
  | {
      readonly type: "forest";
      readonly id: number;
      readonly key: string;
      readonly indices: readonly number[];
    }
  /** Every group of the file with its forensics (its forest dropped): the group panel's columns. */
  | { readonly type: "forensics"; readonly id: number }
  /** Every choice replayed over the file as one batch (the what-if table, docs/mismatch.md). */
  | {
      readonly type: "corrections";
      readonly id: number;
      readonly choices: readonly CorrectionChoice[];
    }
  /** The indexed bytes cut at line starts into ranges of about `targetBytes` (for a scan pool). */
  | { readonly type: "ranges"; readonly id: number; readonly targetBytes: number };

/** A file cut into ranges of whole lines, from its index. */
export interface FileRanges {
  readonly ranges: readonly ScanRange[];
  /** The format the index fixed (undefined while no line was good). */
  readonly format: FormatId | undefined;
  /** Bytes indexed (the ranges cover exactly these). */
  readonly totalBytes: number;
}

/** Indexing progress, with the rows and bad lines found since the previous message (a delta). */
export interface IndexProgress {
  readonly type: "progress";
  /** Bytes indexed so far, and the file size when last checked. */
  readonly bytes: number;
  readonly totalBytes: number;
  readonly lines: number;
  /** "record" for a table or document: `lines` counts its records (row r numbered r + 1). */
  readonly unit?: "record";
  readonly rows: readonly RowSummary[];
  readonly errors: readonly LineError[];
  readonly format: FormatId | undefined;
  /** Milliseconds since indexing started (for the rate). */
  readonly elapsedMs: number;
  /** True once the file was read to its end (a tailed file may still grow afterwards). */
  readonly caughtUp: boolean;
}

/**
 * A Parquet or JSON table, or JSON lines, whose records no format reads (`columns`: a table's
 * columns, a JSONL file's first record's keys): nothing is indexed until the main thread opens it
 * again with a column mapping.
 */
export interface MappingNeeded {
  readonly type: "mapping-needed";
  readonly columns: readonly string[];
  /** The first guess from the column names (columnMapping.ts), if any. */
  readonly suggested: ColumnMapping | undefined;
}

/** Worker → main thread. */
export type WorkerReply =
  | IndexProgress
  | MappingNeeded
  | { readonly type: "trajectory"; readonly id: number; readonly trajectory: Trajectory }
  | { readonly type: "exported"; readonly id: number; readonly blob: Blob }
  | { readonly type: "forest"; readonly id: number; readonly forest: LocatedForest }
  | {
      readonly type: "forensics";
      readonly id: number;
      readonly groups: readonly GroupForensics[];
    }
  | ({ readonly type: "ranges"; readonly id: number } & FileRanges)
  | {
      readonly type: "corrections";
      readonly id: number;
      readonly replays: readonly ReplaySummary[];
    }
  /** A request failed (with its `id`), or the indexing itself did (no id). */
  | { readonly type: "error"; readonly id?: number; readonly message: string };

/** One group's findings without its tree, for the file's group panel and table filters. */
export interface GroupForensics {
  readonly key: string;
  readonly kind: LocatedForest["kind"];
  readonly line: number;
  readonly size: number;
  /** The members' row indices in the file (0-based, file order). */
  readonly rows: readonly number[];
  readonly zeroVarianceCause: LocatedForest["zeroVarianceCause"];
  /** Members that copy another member token for token (a set of k counts k − 1). */
  readonly duplicates: number;
  readonly multiplicityTokens: number;
  readonly multiplicityMax: number;
  readonly causes: readonly string[];
}

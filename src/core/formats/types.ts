import type { ProvenFacts } from "../trajectory/invariants";
import type { Trajectory } from "../trajectory/types";

/** The record formats we read and write. */
export type FormatId =
  | "rollout-lens/v1"
  | "slime"
  | "skyrl-batch"
  | "prime-rl-rollouts"
  | "atropos"
  | "strands"
  | "verl"
  | "atif"
  | "nemo-rl"
  | "prime"
  | "art"
  | "verifiers"
  | "skyrl-eval"
  | "nemo-rl-val"
  | "areal"
  | "miles-trajectory"
  | "text-table"
  | "tinker-capture"
  | "tinker-summary";

export const FORMAT_IDS: readonly FormatId[] = [
  "rollout-lens/v1",
  "slime",
  "atropos",
  "strands",
  "verl",
  "atif",
  "nemo-rl",
  "prime",
  "art",
  "verifiers",
  "skyrl-eval",
  "nemo-rl-val",
  "areal",
  "miles-trajectory",
  "text-table",
  "tinker-capture",
  "tinker-summary",
  "skyrl-batch",
  "prime-rl-rollouts",
];

/**
 * The formats whose records are slime Samples: slime's own, and the other producers' files the
 * readers turn into them (docs/format.md): a SkyRL `dumped_data` batch (core/files/skyrlBatch.ts
 * marks each row `skyrl_batch`) and an older prime-rl rollout table (formats/parquet.ts marks each
 * row `prime_rl_rollouts`). They read alike; the id says who wrote the file.
 */
export const SLIME_SAMPLE_FORMATS: readonly FormatId[] = [
  "slime",
  "skyrl-batch",
  "prime-rl-rollouts",
];

/** True when `format`'s records are slime Samples (response-only arrays after the prompt). */
export function isSlimeSample(format: string): boolean {
  return (SLIME_SAMPLE_FORMATS as readonly string[]).includes(format);
}

/** A bad line: 1-based `line` in its file, `field` the JSON path at fault when known. */
export interface LineError {
  readonly line: number;
  readonly field?: string;
  readonly message: string;
}

/** A problem found while reading one JSON object, before the line number is attached. */
export interface FieldError {
  readonly field?: string;
  readonly message: string;
}

/** What one JSONL line yields: trajectories, nothing (blank line), or one error. */
export type LineResult =
  | {
      readonly kind: "trajectories";
      readonly format: FormatId;
      readonly trajectories: Trajectory[];
    }
  | { readonly kind: "blank" }
  | { readonly kind: "error"; readonly error: LineError };

/** Where the object being read came from, used for ids and `Trajectory.source`. */
export interface ReadContext {
  /** 1-based line number inside the file. */
  readonly line: number;
  readonly path?: string;
}

/** Adapter read result: trajectories, or the first structural error found. */
export type ReadResult =
  | {
      readonly ok: true;
      readonly trajectories: Trajectory[];
      /** Per-token invariants the reader proved while building every trajectory's segments. */
      readonly proven?: ProvenFacts;
    }
  | { readonly ok: false; readonly error: FieldError };

/**
 * One trajectory's two compared lanes as a lane scan reads them off the wire, in token index
 * space: its token ids, the mask (a token is trained where `mask[k] !== untrained`), lane a
 * (π_train) and lane b (π_rollout), null where a lane has no value (undefined: none at all).
 */
export interface WireLaneRow {
  readonly tokenIds: readonly number[];
  readonly mask: readonly number[];
  readonly untrained: number;
  readonly a: readonly (number | null)[] | undefined;
  readonly b: readonly (number | null)[] | undefined;
}

/** The rows of a line whose lanes `lanes` [a, b] a lane scan compares. */
export interface LaneRead {
  readonly lanes: readonly [string, string];
  readonly rows: readonly WireLaneRow[];
}

/** One format: sniff a parsed line, read it into trajectories. */
export interface FormatAdapter {
  readonly id: FormatId;
  /** True when the object's keys look like this format (docs/format.md's sniffing table). */
  detect(value: Readonly<Record<string, unknown>>): boolean;
  read(value: Readonly<Record<string, unknown>>, context: ReadContext): ReadResult;
  /**
   * Optional fast path of a file-wide lane scan (docs/mismatch.md): the rows' lanes `lanes`
   * (undefined: each trajectory's default lanes) read without building trajectories, exactly as
   * `read`, the invariant check and `laneValues` would give them. Undefined whenever the line is
   * not the plain case (a problem, other lanes, a lane kept elsewhere): the scan then reads it
   * with `read`, so its verdicts and numbers never depend on this shortcut.
   */
  readLanes?(
    value: Readonly<Record<string, unknown>>,
    lanes: readonly [string, string] | undefined,
  ): LaneRead | undefined;
  /**
   * The record's own names of the per-token arrays the trajectory's segments are cut from, so a
   * broken invariant (`segments[1].logprobs`) is reported at the field the user's file has
   * (`rollout_log_probs`). `perRow`: one list per row of a group record (`inference_logprobs[2]`).
   */
  readonly tokenFields?: TokenFieldNames;
}

/** See FormatAdapter.tokenFields. */
export interface TokenFieldNames {
  readonly tokenIds: string;
  readonly lossMask: string;
  readonly logprobs: string;
  readonly perRow?: boolean;
  /** A record holding its rows as objects in this list (slime's `{rollout_id, samples}`). */
  readonly rowsIn?: string;
}

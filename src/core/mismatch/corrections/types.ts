import type { ParamSpec } from "./catalog";

/**
 * The corrections trainers apply to the training–inference mismatch, replayed on recorded lanes
 * (docs/mismatch.md "Every correction replayed"). Lane a plays π_θ (the trainer), lane b π_old
 * (the rollout engine), as in `mismatch.ts`. Pure: no DOM, no Node.
 */

/** What a correction did to one compared token. */
export const REPLAY = {
  /** Kept with its ratio r as weight. */
  kept: 1,
  /** Its weight was clipped (TIS, CISPO, GSPO's clip). */
  clipped: 2,
  /** Weight 0: masked out of the loss. */
  masked: 3,
  /** Kept under a soft weight (SAPO's gate). */
  weighted: 4,
  /** Not decided: the correction needs an advantage the row does not carry. */
  unchecked: 5,
} as const;
export type ReplayVerdict = (typeof REPLAY)[keyof typeof REPLAY];

export const VERDICT_NAME: Readonly<Record<ReplayVerdict, string>> = {
  1: "kept",
  2: "clipped",
  3: "masked",
  4: "weighted",
  5: "unchecked",
};

/** Where a row's advantage came from. */
export type AdvantageSource = "recorded" | "group";

/** One row (trajectory) as a correction sees it: its compared tokens only. */
export interface ReplayRow {
  /** The row's index in its file (0 for a lone trajectory). */
  readonly row: number;
  readonly id: string;
  /** Token index (in the trajectory) of each compared token. */
  readonly at: Int32Array;
  /** log π_θ (lane a) and log π_old (lane b) of each compared token. */
  readonly a: Float64Array;
  readonly b: Float64Array;
  /** The row's advantage (one per sequence), undefined when neither recorded nor computable. */
  readonly advantage: number | undefined;
  readonly advantageSource: AdvantageSource | undefined;
}

/** What one correction did to one row: per compared token, a verdict and a weight. */
export interface RowOutcome {
  readonly verdict: Uint8Array;
  /** The factor on A·∇log π_θ: r kept, 0 masked, the clipped or gated value otherwise. */
  readonly weight: Float64Array;
  /**
   * The sequence statistic a sequence-level correction decided by (ρ, mean δ, mean k3, …), and
   * the compared token that decided it (−1 when none); NaN and −1 for the token-level ones.
   */
  readonly stat: number;
  readonly statAt: number;
}

/** The context a correction's explanation may quote (M2PO's batch cut-off). */
export interface BatchFacts {
  /** M2PO: the mean (log r)² of the tokens it kept, and how many it dropped. */
  readonly m2Kept?: number;
  readonly m2Dropped?: number;
}

/** One correction: its name, published source, thresholds, rule and per-token explanation. */
export interface CorrectionRule {
  readonly name: string;
  readonly title: string;
  /** Paper and code the rule is read from. */
  readonly source: string;
  /** The rule in one line (docs/mismatch.md has the full table). */
  readonly formula: string;
  readonly params: readonly ParamSpec[];
  /** True when the rule reads the advantage (rows without one are `unchecked`). */
  readonly needsAdvantage: boolean;
  /**
   * Fills thresholds that default from others (verl's lo = 1/hi) before the declared defaults;
   * `given` holds only what the user set.
   */
  readonly resolve?: (given: Readonly<Record<string, number>>) => Readonly<Record<string, number>>;
  /** Decides per token, per sequence, or over the whole batch (M2PO). */
  readonly scope: "token" | "sequence" | "batch";
  readonly apply: (
    rows: readonly ReplayRow[],
    p: Readonly<Record<string, number>>,
  ) => { outcomes: RowOutcome[]; facts: BatchFacts };
  /** Why token j of `row` got its verdict: who decided, on what value, against which bound. */
  readonly explain: (
    row: ReplayRow,
    o: RowOutcome,
    j: number,
    p: Readonly<Record<string, number>>,
    facts: BatchFacts,
  ) => string;
}

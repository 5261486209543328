import type { SegmentKind } from "../trajectory/types";
import type { TurnReport } from "./prefixCheck";

/** Which text-built token sequence the recorded tokens are compared with. */
export type DriftMode = "roundtrip" | "template" | "text";

export const DRIFT_MODES: readonly DriftMode[] = ["roundtrip", "template", "text"];

/** Why a region differs (docs/drift.md); a region may carry several. */
export type DriftClass =
  | "merge"
  | "split"
  | "resegment"
  | "special_token"
  | "segment_boundary"
  | "mask_straddle"
  | "lossy_text"
  | "template_rewrite";

/** One recorded token of a region: id, display piece, recorded logprob (undefined when none). */
export interface RegionToken {
  readonly id: number;
  readonly piece: string;
  readonly logprob?: number;
}

/**
 * One drift region. `t` is [start, end) in recorded (TITO) token indices, `r` in rebuilt token
 * indices, `bytes` [start, end) in byte offsets of the recorded side's decoded bytes.
 */
export interface DriftRegion {
  readonly t: readonly [number, number];
  readonly r: readonly [number, number];
  readonly bytes: readonly [number, number];
  /** Recorded side's text of the region, escaped (`\n`, `\t`, `\uFFFD`...) for one-line display. */
  readonly text: string;
  /** Rebuilt side's text, escaped; differs from `text` only for lossy/template regions. */
  readonly retokText: string;
  readonly tito: readonly RegionToken[];
  readonly retok: readonly RegionToken[];
  /** Rebuilt minus recorded token count. */
  readonly delta: number;
  readonly classes: readonly DriftClass[];
  /** Segment index (and its kind) of the region's first recorded token. */
  readonly segment: number;
  readonly role: SegmentKind | undefined;
  /** Recorded tokens with loss mask 1 inside the region, and the sum of their logprobs. */
  readonly trainableAffected: number;
  readonly trainableLogprobSum: number;
}

/** Result of one check of one trajectory. Token counts and indices are in token index space. */
export interface DriftResult {
  readonly mode: DriftMode;
  readonly lenTito: number;
  readonly lenRetok: number;
  /** True when both sides spell the same bytes (only the segmentation may differ). */
  readonly textEqual: boolean;
  /** First index i with recorded[i] != rebuilt[i] (or the shorter length); undefined when equal. */
  readonly firstDivergenceIndex: number | undefined;
  readonly regions: readonly DriftRegion[];
  readonly trainableTokensAffected: number;
  /** Template mode only: the per-turn prefix check (prefixCheck.ts), one entry per model turn. */
  readonly turns?: TurnReport;
}

/** The per-call prefix check of files carrying `calls` (docs/tito.md). */
export type CallPrefixResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly callIndex: number; readonly message: string };

import type { MismatchScanOptions } from "../../core/mismatch/fileMismatch";
import { type CorrectionKind, correction } from "../../core/mismatch/mismatch";

/** The file scan's picker as typed: two lane names (both empty: each row's default) and a rule. */
export interface ScanPickerDraft {
  readonly laneA: string;
  readonly laneB: string;
  readonly kind: CorrectionKind;
  /** The threshold C, as typed: a `-trunc` kind's cap, a `-mask` kind's bounds [1/C, C]. */
  readonly cap: string;
}

/** The page's default: each trajectory's default lanes, token-level truncation at C = 2. */
export const DEFAULT_DRAFT: ScanPickerDraft = {
  laneA: "",
  laneB: "",
  kind: "token-trunc",
  cap: "2",
};

/**
 * The draft as scan options, with the semantics of `rollout-lens mismatch --lanes a,b
 * --correction K --cap C` (`correction(kind, { cap })`), or what is wrong with it.
 */
export function scanOptionsOf(
  draft: ScanPickerDraft,
): { ok: true; options: MismatchScanOptions } | { ok: false; message: string } {
  const a = draft.laneA.trim();
  const b = draft.laneB.trim();
  if ((a === "") !== (b === "")) {
    return { ok: false, message: "name both lanes, or neither for each trajectory's default" };
  }
  if (a !== "" && a === b) return { ok: false, message: `both lanes are ${a}: nothing to compare` };
  const cap = Number(draft.cap);
  if (draft.cap.trim() === "" || !(cap > 0) || !Number.isFinite(cap)) {
    return { ok: false, message: `threshold C: expected a positive number, got "${draft.cap}"` };
  }
  const c = correction(draft.kind, { cap });
  return { ok: true, options: a === "" ? { correction: c } : { lanes: [a, b], correction: c } };
}

/** What the summary says the rule did: "clipped at C = 2", "masked outside [0.5, 2]". */
export function correctionLabel(options: MismatchScanOptions): string {
  const c = options.correction ?? correction("token-trunc");
  const at = c.kind.endsWith("-trunc")
    ? `clipped (${c.kind}, C = ${c.cap})`
    : `masked (${c.kind}, outside [${Number(c.lo.toPrecision(3))}, ${c.hi}])`;
  return at;
}

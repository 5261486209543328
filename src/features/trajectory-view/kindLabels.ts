import type { CorrectionKind } from "../../core/mismatch/mismatch";
import type { FinishReason, SegmentKind } from "../../core/trajectory/types";

export const KIND_LABEL: Readonly<Record<SegmentKind, string>> = {
  prompt: "prompt · mask 0",
  model: "model output · mask 1 (trained)",
  tool: "tool result · mask 0",
};

/** Short human text for a finish reason, e.g. `stop (151645)`. */
export function finishText(reason: FinishReason | undefined): string | undefined {
  if (!reason) return undefined;
  switch (reason.type) {
    case "stop":
      return reason.matched === undefined || reason.matched === null
        ? "stop"
        : `stop (${reason.matched})`;
    case "length":
      return reason.length === undefined ? "length" : `length (${reason.length})`;
    case "abort":
      return reason.message ? `abort: ${reason.message}` : "abort";
    default: {
      const never: never = reason;
      return String(never);
    }
  }
}

/** What each replayed correction is called in the view (docs/mismatch.md has the rules). */
export const CORRECTION_LABEL: Readonly<Record<CorrectionKind, string>> = {
  "token-trunc": "token truncation (TIS)",
  "token-mask": "token masking",
  "seq-trunc": "sequence truncation",
  "seq-mask": "sequence masking",
  "geo-mask": "geometric-mean masking",
};

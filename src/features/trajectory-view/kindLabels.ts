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

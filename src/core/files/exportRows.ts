import { trajectoryToAtif } from "../formats/atifWrite";
import { stringifyJsonLine } from "../formats/jsonLine";
import { writeRolloutLens } from "../formats/rolloutLens";
import { writeSlime } from "../formats/slime";
import { writeStrands } from "../formats/strands";
import type { Trajectory } from "../trajectory/types";

/** Formats the filtered set can be exported to. */
export const EXPORT_FORMATS = ["rollout-lens/v1", "slime", "strands", "atif"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One JSONL line (no trailing newline) holding the trajectory in `format`. */
export function exportLine(t: Trajectory, format: ExportFormat): string {
  switch (format) {
    case "rollout-lens/v1":
      return stringifyJsonLine(writeRolloutLens(t));
    case "slime":
      return stringifyJsonLine(writeSlime(t));
    case "strands":
      return stringifyJsonLine(writeStrands(t));
    case "atif":
      // One compact ATIF document per line; tools that read trajectory.json take one line each.
      return stringifyJsonLine(trajectoryToAtif(t));
    default: {
      const never: never = format;
      throw new Error(`unknown export format ${String(never)}`);
    }
  }
}

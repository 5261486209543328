import { stringifyJsonLine } from "../../core/formats/jsonLine";
import { writeRolloutLens } from "../../core/formats/rolloutLens";
import type { Trajectory } from "../../core/trajectory/types";

/** The name a rescored row is saved under: its id, made safe for a file name. */
export function rescoredFileName(t: Trajectory): string {
  return `${t.id.replace(/[^A-Za-z0-9._-]+/g, "_")}.rescored.jsonl`;
}

/**
 * "Save as": the row with its rescored lane, one rollout-lens/v1 line, downloaded as a new file;
 * the file the row came from is never written (docs/mismatch.md#the-mismatch-view).
 */
export function saveRescoredAs(t: Trajectory): void {
  const line = `${stringifyJsonLine(writeRolloutLens(t))}\n`;
  const url = URL.createObjectURL(new Blob([line], { type: "application/x-ndjson" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = rescoredFileName(t);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

import { downloadBlob, safeFileName } from "../../app/downloadFile";
import { stringifyJsonLine } from "../../core/formats/jsonLine";
import { writeRolloutLens } from "../../core/formats/rolloutLens";
import type { Trajectory } from "../../core/trajectory/types";

/** The name a rescored row is saved under: its id, made safe for a file name. */
export function rescoredFileName(t: Trajectory): string {
  return `${safeFileName(t.id)}.rescored.jsonl`;
}

/**
 * "Save as": the row with its rescored lane, one rollout-lens/v1 line, downloaded as a new file;
 * the file the row came from is never written (docs/mismatch.md#the-mismatch-view).
 */
export function saveRescoredAs(t: Trajectory): void {
  const line = `${stringifyJsonLine(writeRolloutLens(t))}\n`;
  downloadBlob(new Blob([line], { type: "application/x-ndjson" }), rescoredFileName(t));
}

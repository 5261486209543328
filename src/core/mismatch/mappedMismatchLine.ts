import type { ColumnMapping } from "../formats/columnMapping";
import { readRolloutLine } from "../formats/readRolloutLine";
import { type FileMismatchScan, type MismatchScanOptions, rowIntoCharts } from "./fileMismatch";

/**
 * fileMismatch.ts scanMismatchLine for a JSONL file read through a column mapping (records no
 * known producer wrote): the line is read as the file index reads it (readRolloutLine with the
 * mapping), so bad lines and row indices agree with the table's; each trajectory goes into the
 * charts as scanMismatchLine puts it.
 */
export function scanMappedMismatchLine(
  scan: FileMismatchScan,
  text: string,
  lineNo: number,
  firstRow: number,
  options: MismatchScanOptions,
  mapping: ColumnMapping,
  path?: string,
): void {
  scan.lines = lineNo;
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  const result = readRolloutLine(clean, lineNo, scan.format, path, mapping);
  if (result.kind === "blank") return;
  if (result.kind === "error") {
    scan.badLines++;
    return;
  }
  scan.format ??= result.format;
  for (const t of result.trajectories) {
    const row = firstRow + scan.rows.length;
    const out = rowIntoCharts(scan.charts, t, row, lineNo, options);
    scan.rows.push(out.ok ? out.row : undefined);
  }
}

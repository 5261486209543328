import type { LineIndex } from "./lineIndex";

/**
 * A piece of a file for one worker to scan: whole lines only, with where its lines and rows sit
 * in the file (so results land on the right table rows whatever order pieces finish in).
 */
export interface ScanRange {
  /** Byte offsets [start, end): start is a line start; end is a line start or the file's end. */
  readonly start: number;
  readonly end: number;
  /** 1-based number of the first line in the range. */
  readonly firstLine: number;
  /** 0-based row index (over every trajectory of the file) of the range's first row. */
  readonly firstRow: number;
  /**
   * Set for a file of records (a Parquet table, one JSON document; core/files/recordIndexer.ts):
   * the range is this many records from record `firstLine - 1`, and start/end are the bytes they
   * stand for (progress only).
   */
  readonly records?: number;
}

/**
 * Cuts bytes [0, totalBytes) of an indexed file into ranges of about `targetBytes`, at line
 * starts. `rowLines` is the 1-based line of every row in file order (the index's rows); bytes past
 * the last indexed line (a line still being written) join the last range.
 */
export function splitScanRanges(
  lines: LineIndex,
  rowLines: readonly { readonly line: number }[],
  totalBytes: number,
  targetBytes: number,
): ScanRange[] {
  const ranges: ScanRange[] = [];
  const target = Math.max(1, targetBytes);
  let row = 0;
  let line = 0;
  while (line < lines.count || ranges.length === 0) {
    const start = lines.starts[line] ?? 0;
    if (ranges.length > 0 && start >= totalBytes) break;
    // Rows whose line is before this range's first line come before its first row.
    while (row < rowLines.length && (rowLines[row]?.line ?? 0) <= line) row++;
    let next = line + 1;
    while (next < lines.count && (lines.starts[next] ?? 0) - start < target) next++;
    const end = next < lines.count ? Math.min(totalBytes, lines.starts[next] ?? 0) : totalBytes;
    ranges.push({ start, end: Math.max(start, end), firstLine: line + 1, firstRow: row });
    line = next;
  }
  return ranges;
}

/**
 * Cuts a file of records into ranges of whole record groups (Parquet row groups, read together)
 * of about `targetBytes`. `groups` are the record source's; `rowLines` as in splitScanRanges.
 */
export function splitRecordRanges(
  groups: readonly { readonly start: number; readonly rows: number; readonly bytes: number }[],
  rowLines: readonly { readonly line: number }[],
  targetBytes: number,
): ScanRange[] {
  const ranges: ScanRange[] = [];
  let row = 0;
  let bytes = 0;
  let k = 0;
  while (k < groups.length) {
    const first = groups[k];
    if (!first) break;
    let records = 0;
    let size = 0;
    // At least one group; more while the range stays under the target.
    do {
      const group = groups[k];
      if (!group) break;
      records += group.rows;
      size += group.bytes;
      k++;
    } while (k < groups.length && size + (groups[k]?.bytes ?? 0) <= targetBytes);
    // Rows of records before this range's first record come before its first row.
    while (row < rowLines.length && (rowLines[row]?.line ?? 0) <= first.start) row++;
    ranges.push({
      start: bytes,
      end: bytes + size,
      firstLine: first.start + 1,
      firstRow: row,
      records,
    });
    bytes += size;
  }
  return ranges;
}

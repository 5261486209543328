import { type ParquetFile, readParquetRecords } from "../formats/parquet";
import { summarizeParquetRows } from "./parquetSummaries";
import type { RecordSource } from "./recordIndexer";

/*
 * A Parquet table as a RecordSource: a module of its own, so what reads only JSON lines and
 * JSON documents (recordIndexer, the server's line reader and scan workers) never loads hyparquet.
 */

/** Rows read first, alone, so the first rows are browsable before a big first row group is done. */
export const FIRST_PARQUET_ROWS = 16;

export function parquetRecordSource(parquet: ParquetFile): RecordSource {
  const groups = parquet.rowGroups.flatMap((g, k) => {
    const meta = parquet.metadata.row_groups[k];
    const bytes = Number(meta?.total_compressed_size ?? meta?.total_byte_size ?? 0);
    if (k > 0 || g.rows <= FIRST_PARQUET_ROWS) return [{ ...g, bytes }];
    // hyparquet reads only the pages holding a row range, so a small first range comes back fast.
    const head = Math.round((bytes * FIRST_PARQUET_ROWS) / g.rows);
    return [
      { start: g.start, rows: FIRST_PARQUET_ROWS, bytes: head },
      {
        start: g.start + FIRST_PARQUET_ROWS,
        rows: g.rows - FIRST_PARQUET_ROWS,
        bytes: bytes - head,
      },
    ];
  });
  return {
    rows: parquet.rows,
    columns: parquet.columns,
    groups,
    read: (start, end) => readParquetRecords(parquet, start, end),
    ...(parquet.mapping ? { mapping: parquet.mapping } : {}),
    summarize: (start, end, firstIndex, format, path) =>
      summarizeParquetRows(parquet, start, end, firstIndex, format, path),
  };
}

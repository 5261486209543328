import { stat } from "node:fs/promises";
import { isMainThread } from "node:worker_threads";
import { asyncBufferFromFile } from "hyparquet";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import {
  openParquet,
  type ParquetRowGroup,
  readParquetRecords,
} from "../../src/core/formats/parquet";
import { READER_MEMORY_LIMIT_MB, readBudgetMs } from "../workers/budgets";
import { createLazyWorkerPool, workerUrl } from "../workers/workerPool";
import type { NumberedLine } from "./readLines";

/*
 * A Parquet file's rows as numbered JSON lines, read on a worker thread one row group per call
 * (docs/format.md "Bounded reading"): the footer and every page header are checked before
 * anything is decoded (core/formats/parquetChecks.ts), and what those checks cannot foresee (a
 * decoder stuck or growing inside the Parquet library) ends at the call's time budget or the
 * worker's memory limit, with an error naming the file and the row group, never a hung or killed
 * process. Inside a worker thread (step statistics) the rows are read in that thread, which its
 * own pool bounds the same way.
 */

export type ParquetReadRequest =
  | { readonly kind: "open"; readonly path: string }
  | { readonly kind: "group"; readonly path: string; readonly start: number; readonly end: number };

export type ParquetReadResult = readonly ParquetRowGroup[] | readonly string[];

/** The file last opened in this thread (calls read one file's row groups in turn). */
let opened: { path: string; mtimeMs: number; file: ReturnType<typeof openParquet> } | undefined;

async function parquetOf(path: string) {
  const { mtimeMs } = await stat(path);
  if (opened?.path !== path || opened.mtimeMs !== mtimeMs) {
    opened = { path, mtimeMs, file: asyncBufferFromFile(path).then((b) => openParquet(b)) };
  }
  return opened.file;
}

/** Answers one call: the row groups of a file, or one group's rows as JSON lines. */
export async function readParquetPart(request: ParquetReadRequest): Promise<ParquetReadResult> {
  const parquet = await parquetOf(request.path);
  if (request.kind === "open") return parquet.rowGroups;
  const records = await readParquetRecords(parquet, request.start, request.end);
  return records.map((value) => stringifyJsonLine(value));
}

/** Parquet files read at once from the main thread, each on its own worker. */
const PARQUET_WORKERS = 2;

const pool = createLazyWorkerPool<ParquetReadRequest, ParquetReadResult>({
  name: "Parquet reader",
  url: workerUrl("files", "parquetRead.worker"),
  size: PARQUET_WORKERS,
  resourceLimits: { maxOldGenerationSizeMb: READER_MEMORY_LIMIT_MB },
  unref: true,
});

function call(request: ParquetReadRequest, label: string, bytes: number) {
  if (!isMainThread) return readParquetPart(request);
  return pool.call(request, { label, budgetMs: readBudgetMs(bytes) });
}

/** Every row of the Parquet file at `path`, row r as line r + 1, one row group at a time. */
export async function* parquetLines(path: string): AsyncGenerator<NumberedLine> {
  const { size } = await stat(path);
  const groups = (await call(
    { kind: "open", path },
    `${path} (its footer)`,
    size,
  )) as ParquetRowGroup[];
  for (const [k, group] of groups.entries()) {
    const end = group.start + group.rows;
    const label = `${path} row group ${k} (rows ${group.start + 1}–${end})`;
    const lines = (await call(
      { kind: "group", path, start: group.start, end },
      label,
      size,
    )) as string[];
    for (const [r, text] of lines.entries()) {
      yield { lineNo: group.start + r + 1, text, isRecord: true };
    }
  }
}

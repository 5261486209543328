import { type ColumnMetaData, parquetReadObjects, parquetSchema } from "hyparquet";
import { getTreePath } from "../formats/hyparquetInternals";
import { type ParquetFile, plainValue, recordOfPlainRow } from "../formats/parquet";
import { checkGroupPages } from "../formats/parquetChecks";
import { PARQUET_COMPRESSORS } from "../formats/parquetCodecs";
import {
  isNumberListPath,
  type NumberListColumn,
  readNumberListColumn,
} from "../formats/parquetLists";
import type { FormatId } from "../formats/types";
import { POSITION_BUCKET_STARTS } from "../series/positionSeries";
import { type RowSummary, summarizeRecord } from "./rowSummary";

/*
 * Row summaries of a prime-rl rollout table straight from its columns. Building each
 * row's full trajectory (a JS array per token list, the prompt + response concatenation, the
 * slime reader's segments) is what made indexing a Parquet table slow; a summary needs only the
 * token lists' lengths and validity and the logprobs' sums. So the three token columns are read
 * as flat typed arrays (parquetLists.readNumberListColumn), every other column as it is, and the
 * row is summarized twice over:
 * - its "skeleton" through the one summary path (summarizeRecord) with the three lists empty:
 *   id, status, reward, group, advantage, search text, format, every check of the other columns;
 * - its token counts and logprob sums from the flat arrays, exactly as summarizeTrajectory and
 *   logprobSumsByPosition add them (same values, same order).
 * Anything the slime reader would read differently with the real lists (a bad token id, a length
 * mismatch, a loss mask, lanes, a teacher column) makes the whole row group take the full path.
 * The tests compare both paths on the fixtures and on generated tables.
 */

/** The lists summarized from flat arrays. */
const TOKENS = ["input_tokens", "output_tokens"] as const;
const LOGPROBS = "output_logprobs";

/**
 * Keys the slime reader or the summary reads the content of: a number-list column by one of
 * these names needs the full path. Other number-list columns (input_logprobs) only land in
 * metadata, so they are not read here at all.
 */
const INTERPRETED = new Set([
  "tokens",
  "response_length",
  "loss_mask",
  "rollout_log_probs",
  "status",
  "reward",
  "rewards",
  "group_index",
  "teacher_log_probs",
  "logprob_lanes",
  "logprob_lane_info",
  "advantage",
  "advantages",
  "input",
  "output",
  "messages",
  "samples",
]);

/** True when every entry of row r is a token id the slime reader accepts (non-negative safe int). */
function validTokens(column: NumberListColumn, r: number): boolean {
  return column.tokenIds && (column.nullEntries[r] ?? 0) === 0;
}

const rowLength = (column: NumberListColumn, r: number) =>
  (column.starts[r + 1] ?? 0) - (column.starts[r] ?? 0);

/** The token-dependent fields of one row: prompt `prompt` tokens, then the response, all trainable. */
function tokenFields(
  prompt: number,
  response: number,
  logprobs: NumberListColumn | undefined,
  r: number,
) {
  let logprobSum = 0;
  let logprobCount = 0;
  const sums: number[] = [];
  const counts: number[] = [];
  const values = logprobs?.values;
  if (logprobs && values && logprobs.nullList[r] === 0) {
    const first = logprobs.starts[r] ?? 0;
    let bucket = 0;
    let nextStart = POSITION_BUCKET_STARTS[1] ?? Number.POSITIVE_INFINITY;
    for (let k = 0; k < response; k++) {
      const at = prompt + k;
      while (at >= nextStart) {
        bucket += 1;
        nextStart = POSITION_BUCKET_STARTS[bucket + 1] ?? Number.POSITIVE_INFINITY;
      }
      const lp = values[first + k] as number;
      // A logprob > 0 on a model token is an invariant the full path reports: left to it.
      if (lp > 0) return undefined;
      if (!Number.isFinite(lp)) continue;
      logprobSum += lp;
      logprobCount += 1;
      while (sums.length <= bucket) {
        sums.push(0);
        counts.push(0);
      }
      sums[bucket] = (sums[bucket] ?? 0) + lp;
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
  }
  return {
    totalTokens: prompt + response,
    trainableTokens: response,
    turns: response > 0 ? 1 : 0,
    meanLogprob: logprobCount === 0 ? undefined : logprobSum / logprobCount,
    logprobByPosition: { sums, counts },
  };
}

/** The chunk plan of one row group: flat-read lists, other columns, lists left out. */
function planOf(parquet: ParquetFile, groupIndex: number) {
  const tree = parquetSchema(parquet.metadata);
  const flat = new Map<
    string,
    { path: ReturnType<typeof getTreePath>; start: number; end: number; meta: ColumnMetaData }
  >();
  const others: string[] = [];
  const skipped: string[] = [];
  for (const chunk of parquet.metadata.row_groups[groupIndex]?.columns ?? []) {
    const meta = chunk.meta_data;
    const name = meta?.path_in_schema[0];
    if (!meta || name === undefined || chunk.file_path) return undefined;
    const path = getTreePath(tree, meta.path_in_schema);
    const isList = isNumberListPath(path);
    if (isList && (TOKENS.some((t) => t === name) || name === LOGPROBS)) {
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
      flat.set(name, {
        path,
        start,
        end: start + Number(meta.total_compressed_size),
        meta,
      });
    } else if (isList) {
      if (INTERPRETED.has(name)) return undefined;
      skipped.push(name);
    } else if (!others.includes(name)) others.push(name);
  }
  return { flat, others, skipped };
}

/**
 * Summaries of rows [start, end) of one row group (numbered from `firstIndex` among the file's
 * trajectories), or undefined when the full path must summarize them: not a prime-rl rollout
 * table, a format other than slime, or a row the projection does not cover.
 */
export async function summarizeParquetRows(
  parquet: ParquetFile,
  start: number,
  end: number,
  firstIndex: number,
  format: FormatId | undefined,
  path?: string,
): Promise<RowSummary[] | undefined> {
  const groupIndex = parquet.rowGroups.findIndex(
    (g) => g.start <= start && end <= g.start + g.rows,
  );
  const group = parquet.rowGroups[groupIndex];
  if (parquet.producer !== "prime-rl-rollouts" || format !== "prime-rl-rollouts" || !group)
    return undefined;
  const plan = planOf(parquet, groupIndex);
  if (!plan || TOKENS.some((t) => !plan.flat.has(t))) return undefined;
  const names = [...plan.flat.keys()];
  await checkGroupPages(parquet.file, parquet.metadata, groupIndex);
  const [rest, ...chunks] = await Promise.all([
    plan.others.length === 0
      ? undefined
      : parquetReadObjects({
          file: parquet.file,
          metadata: parquet.metadata,
          columns: plan.others,
          rowStart: start,
          rowEnd: end,
          compressors: PARQUET_COMPRESSORS,
        }),
    ...names.map((n) => {
      const c = plan.flat.get(n);
      return c ? parquet.file.slice(c.start, c.end) : undefined;
    }),
  ]);
  const columns = new Map<string, NumberListColumn>();
  for (const [k, name] of names.entries()) {
    const c = plan.flat.get(name);
    const bytes = chunks[k];
    if (!c || !bytes) return undefined;
    // Token lists: lengths and validity only; logprobs: their values.
    const column = readNumberListColumn(new Uint8Array(bytes), c.path, c.meta, {
      values: name === LOGPROBS,
      compressors: PARQUET_COMPRESSORS,
    });
    if (!column || column.rows !== group.rows) return undefined;
    columns.set(name, column);
  }
  const input = columns.get("input_tokens");
  const output = columns.get("output_tokens");
  const logprobs = columns.get(LOGPROBS);
  if (!input || !output) return undefined;
  const out: RowSummary[] = [];
  for (let r = start - group.start; r < end - group.start; r++) {
    if (!validTokens(input, r) || !validTokens(output, r)) return undefined;
    const prompt = rowLength(input, r);
    const response = rowLength(output, r);
    if (logprobs && logprobs.nullList[r] === 0 && rowLength(logprobs, r) !== response)
      return undefined;
    // A response without a prompt starts with a model segment: an invariant the full path reports.
    if (prompt === 0 && response > 0) return undefined;
    const row: Record<string, unknown> = {};
    const own = rest?.[r - (start - group.start)];
    for (const name of parquet.columns) {
      const list = columns.get(name);
      if (list) row[name] = list.nullList[r] === 1 ? null : [];
      else if (plan.skipped.includes(name)) row[name] = [];
      else row[name] = own?.[name] === undefined ? null : plainValue(own[name]);
    }
    const lineNo = group.start + r + 1;
    const record = recordOfPlainRow(row, parquet.producer);
    const skeleton = summarizeRecord(record, lineNo, firstIndex + out.length, format, path);
    if (skeleton.kind !== "rows" || skeleton.rows.length !== 1 || !skeleton.rows[0])
      return undefined;
    const fields = tokenFields(prompt, response, logprobs, r);
    if (!fields) return undefined;
    out.push({ ...skeleton.rows[0], ...fields });
  }
  return out;
}

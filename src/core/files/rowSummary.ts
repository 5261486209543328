import { groupKeyOf } from "../forest/groupKeys";
import type { ColumnMapping } from "../formats/columnMapping";
import { readRolloutLine, readRolloutValue } from "../formats/readRolloutLine";
import type { FormatId, LineError } from "../formats/types";
import { logprobSumsByPosition, type PositionSums } from "../series/positionSeries";
import { rowText } from "../trajectory/rowText";
import type { Trajectory, TrajectoryStatus } from "../trajectory/types";

/**
 * What the table needs of one trajectory, kept instead of the trajectory itself so a file far
 * larger than memory stays browsable. `line` is 1-based in the file, `row` 0-based inside the line
 * (atropos groups hold several trajectories per line).
 */
export interface RowSummary {
  /** 0-based position among all trajectories of the file (table row index before sorting). */
  readonly index: number;
  readonly line: number;
  readonly row: number;
  readonly id: string;
  readonly format: FormatId;
  readonly status: TrajectoryStatus;
  /** undefined when the record has no scalar reward. */
  readonly reward: number | undefined;
  readonly totalTokens: number;
  /** Tokens with loss mask 1 (the ones the policy is trained on). */
  readonly trainableTokens: number;
  /** Model turns (model segments). */
  readonly turns: number;
  readonly toolCalls: number;
  /** Tool calls that failed to parse or whose tool returned an error. */
  readonly toolErrors: number;
  /** "stop" | "length" | "abort" of the last model segment; undefined when not recorded. */
  readonly finishReason: string | undefined;
  /** Mean of the recorded logprobs over trainable tokens (nats); undefined when none. */
  readonly meanLogprob: number | undefined;
  /** The group key (core/forest/groupKeys: recorded tree, GRPO group, rollout_id, branch root). */
  readonly group: string | undefined;
  /** Mean per-token (or the scalar) advantage when the record carries one. */
  readonly advantage: number | undefined;
  /** Trainable-token logprob sums per position bucket (core/series/positionSeries); absent in test rows. */
  readonly logprobByPosition?: PositionSums;
  /** Lower-cased text of the record for search: the decoded segment texts, capped. */
  readonly searchText: string;
}

/** Characters of decoded text kept per row for text search (bounds memory on huge files). */
export const SEARCH_TEXT_CAP = 4096;

function finiteOrUndefined(value: number | null | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function meanOf(values: readonly unknown[]): number | undefined {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (typeof v === "number" && Number.isFinite(v)) {
      sum += v;
      n += 1;
    }
  }
  return n === 0 ? undefined : sum / n;
}

/** The advantage a record carries: scalar `advantage`, or the mean of `advantages` (row `row`). */
export function readAdvantage(t: Trajectory): number | undefined {
  const { advantage, advantages } = t.metadata;
  if (typeof advantage === "number") return finiteOrUndefined(advantage);
  if (!Array.isArray(advantages)) return undefined;
  const own: unknown = advantages.every(Array.isArray) ? advantages[t.source.row ?? 0] : advantages;
  return Array.isArray(own) ? meanOf(own) : undefined;
}

/** A text field as a record keeps it: a string, or chat messages whose string contents are joined. */
function keptText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return undefined;
  const contents = value.flatMap((m: unknown) =>
    typeof m === "object" && m !== null && "content" in m && typeof m.content === "string"
      ? [m.content]
      : [],
  );
  return contents.length > 0 ? contents.join("\n") : undefined;
}

/**
 * The text of a record without decoded segments (atropos, verl, prime, ART, ATIF without ids,
 * slime): its messages (or the rendered text atropos may keep instead), else verl's `input` and
 * `output` or slime's `prompt` (a string or chat messages) and `response`, so text search finds it.
 */
function textOnlyParts(t: Trajectory): string[] {
  const text = rowText(t);
  if (text !== undefined) return [text];
  const { input, output, prompt, response } = t.metadata;
  return [input, output, prompt, response].flatMap((v) => {
    const kept = keptText(v);
    return kept === undefined ? [] : [kept, "\n"];
  });
}

/** Summarizes one trajectory; `index` is its 0-based position in the file. */
export function summarizeTrajectory(t: Trajectory, index: number, format: FormatId): RowSummary {
  let totalTokens = 0;
  let trainableTokens = 0;
  let turns = 0;
  let toolCalls = 0;
  let toolErrors = 0;
  let finishReason: string | undefined;
  let logprobSum = 0;
  let logprobCount = 0;
  const texts: string[] = [];
  let textLength = 0;
  for (const s of t.segments) {
    totalTokens += s.tokenIds.length;
    for (let k = 0; k < s.lossMask.length; k++) {
      if (s.lossMask[k] !== 1) continue;
      trainableTokens += 1;
      const lp = s.logprobs[k];
      if (typeof lp === "number" && Number.isFinite(lp)) {
        logprobSum += lp;
        logprobCount += 1;
      }
    }
    if (s.kind === "model") {
      turns += 1;
      if (s.finishReason) finishReason = s.finishReason.type;
    }
    for (const call of s.toolCalls ?? []) {
      toolCalls += 1;
      if (call.error !== undefined || call.resultIsError === true) toolErrors += 1;
    }
    if (s.text !== undefined && textLength < SEARCH_TEXT_CAP) {
      texts.push(s.text);
      textLength += s.text.length;
    }
  }
  return {
    index,
    line: t.source.line ?? 0,
    row: t.source.row ?? 0,
    id: t.id,
    format,
    status: t.status,
    reward: finiteOrUndefined(t.reward),
    totalTokens,
    trainableTokens,
    turns,
    toolCalls,
    toolErrors,
    finishReason,
    meanLogprob: logprobCount === 0 ? undefined : logprobSum / logprobCount,
    group: groupKeyOf(t)?.key,
    advantage: readAdvantage(t),
    logprobByPosition: logprobSumsByPosition(t.segments),
    searchText: `${t.id}\n${(textLength > 0 ? texts : textOnlyParts(t)).join("")}`
      .slice(0, SEARCH_TEXT_CAP)
      .toLowerCase(),
  };
}

/** What one line contributes to the file's table: summaries, nothing (blank) or one error. */
export type LineSummary =
  | { readonly kind: "rows"; readonly format: FormatId; readonly rows: RowSummary[] }
  | { readonly kind: "blank" }
  | { readonly kind: "error"; readonly error: LineError };

/**
 * Parses one line (1-based `lineNo`) once and keeps only its row summaries, numbered from
 * `firstIndex`. A trailing `\r` (CRLF files) is dropped before parsing. With `mapping`, the line
 * is read through it (readRolloutLine).
 */
export function summarizeLine(
  text: string,
  lineNo: number,
  firstIndex: number,
  formatHint?: FormatId,
  path?: string,
  mapping?: ColumnMapping,
): LineSummary {
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  const result = readRolloutLine(clean, lineNo, formatHint, path, mapping);
  if (result.kind !== "trajectories") return result;
  return {
    kind: "rows",
    format: result.format,
    rows: result.trajectories.map((t, k) => summarizeTrajectory(t, firstIndex + k, result.format)),
  };
}

/** summarizeLine for a record already parsed (a Parquet row mapped to a record). */
export function summarizeRecord(
  value: unknown,
  lineNo: number,
  firstIndex: number,
  formatHint?: FormatId,
  path?: string,
  mapping?: ColumnMapping,
): LineSummary {
  const result = readRolloutValue(value, lineNo, formatHint, path, mapping);
  if (result.kind !== "trajectories") return result;
  return {
    kind: "rows",
    format: result.format,
    rows: result.trajectories.map((t, k) => summarizeTrajectory(t, firstIndex + k, result.format)),
  };
}

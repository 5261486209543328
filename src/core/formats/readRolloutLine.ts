import { isRecord } from "../isRecord";
import { checkTrajectory } from "../trajectory/invariants";
import { atifAdapter } from "./atif";
import { atroposAdapter } from "./atropos";
import {
  applyColumnMapping,
  type ColumnMapping,
  formatMapSpec,
  mappedFieldName,
  mappedRecordProblem,
  suggestColumnMapping,
} from "./columnMapping";
import { parseJsonLine } from "./jsonLine";
import { nemoRlAdapter } from "./nemoRl";
import { rolloutLensAdapter } from "./rolloutLens";
import { primeRlRolloutsAdapter, skyrlBatchAdapter, slimeAdapter } from "./slime";
import { strandsAdapter } from "./strands";
import {
  arealAdapter,
  milesTrajectoryAdapter,
  nemoRlValAdapter,
  skyrlEvalAdapter,
} from "./textDumps";
import { artAdapter, primeAdapter } from "./textRecords";
import { textTableAdapter } from "./textTable";
import { tinkerCaptureAdapter, tinkerSummaryAdapter } from "./tinker";
import type { FormatAdapter, FormatId, LaneRead, LineResult } from "./types";
import { verifiersAdapter } from "./verifiers";
import { verlAdapter } from "./verl";

/** Sniffing order: explicit `format` markers first, then the key patterns of docs/format.md. */
const PRODUCER_ADAPTERS: readonly FormatAdapter[] = [
  rolloutLensAdapter,
  atifAdapter,
  nemoRlAdapter,
  strandsAdapter,
  skyrlBatchAdapter,
  primeRlRolloutsAdapter,
  slimeAdapter,
  atroposAdapter,
  verlAdapter,
  primeAdapter,
  artAdapter,
  verifiersAdapter,
  skyrlEvalAdapter,
  nemoRlValAdapter,
  arealAdapter,
  milesTrajectoryAdapter,
  tinkerCaptureAdapter,
  tinkerSummaryAdapter,
];

/** Every reader: the producers' own, then a text table (prompt and completion, no ids) none claims. */
export const ADAPTERS: readonly FormatAdapter[] = [
  ...PRODUCER_ADAPTERS,
  {
    ...textTableAdapter,
    detect: (v) => textTableAdapter.detect(v) && !PRODUCER_ADAPTERS.some((a) => a.detect(v)),
  },
];

/** The format a parsed line looks like, by its keys; undefined when none matches. */
export function detectFormat(value: Readonly<Record<string, unknown>>): FormatId | undefined {
  return ADAPTERS.find((a) => a.detect(value))?.id;
}

/**
 * Reads one JSONL line (1-based `lineNo`) into trajectories, or a typed error naming the field.
 * Blank lines are `blank`, not errors. With a `formatHint` the line must be of that format;
 * without, the format is sniffed from the line's keys. With a `mapping` (a record no known
 * producer wrote, columnMapping.ts), an object line is read through it as a slime Sample. Every
 * trajectory read is also checked against the model's invariants: the first violation makes the
 * line an error (never fixed).
 */
export function readRolloutLine(
  lineText: string,
  lineNo: number,
  formatHint?: FormatId,
  path?: string,
  mapping?: ColumnMapping,
): LineResult {
  if (lineText.trim().length === 0) return { kind: "blank" };
  const parsed = parseJsonLine(lineText);
  if (!parsed.ok) return { kind: "error", error: { line: lineNo, message: parsed.message } };
  return readRolloutValue(parsed.value, lineNo, formatHint, path, mapping);
}

/**
 * The error of a record no format reads: its keys, and when they look like a table's token-id
 * columns, the `--map` flag that would read it.
 */
export function unknownFormatMessage(keys: readonly string[]): string {
  const cut = (key: string) => (key.length > 40 ? `${key.slice(0, 40)}...` : key);
  const shown = keys.slice(0, 8).map(cut).join(", ") + (keys.length > 8 ? ", ..." : "");
  const suggested = suggestColumnMapping(keys);
  const how = suggested
    ? `; its columns look like token ids: read it with --map ${formatMapSpec(suggested)}`
    : "";
  return `unknown record format (keys: ${shown})${how}; see docs/format.md for the formats read`;
}

/**
 * readRolloutLine for a record already parsed (a JSON line, or a Parquet row mapped to a
 * record): `lineNo` numbers it in its file (1-based; a Parquet file's rows count as its lines).
 */
export function readRolloutValue(
  value: unknown,
  lineNo: number,
  formatHint?: FormatId,
  path?: string,
  mapping?: ColumnMapping,
): LineResult {
  if (mapping) {
    if (!isRecord(value)) return lineError(lineNo, notObjectMessage(value));
    return readMappedValue(value, lineNo, formatHint, path, mapping);
  }
  const found = adapterFor(value, lineNo, formatHint);
  return "adapter" in found ? readWith(found.adapter, found.value, lineNo, path) : found;
}

/** A bad line's result: its line, message and field. */
function lineError(lineNo: number, message: string, field?: string): LineResult {
  return {
    kind: "error",
    error: field === undefined ? { line: lineNo, message } : { line: lineNo, field, message },
  };
}

/** The adapter that reads `value` (sniffed, or the hint's when it agrees), or why none does. */
function adapterFor(
  value: unknown,
  lineNo: number,
  formatHint: FormatId | undefined,
): { adapter: FormatAdapter; value: Readonly<Record<string, unknown>> } | LineResult {
  if (!isRecord(value)) return lineError(lineNo, notObjectMessage(value));
  const detected = detectFormat(value);
  const format = formatHint ?? detected;
  const adapter = ADAPTERS.find((a) => a.id === format);
  if (!adapter) return lineError(lineNo, unknownFormatMessage(Object.keys(value)));
  if (formatHint !== undefined && detected !== undefined && detected !== formatHint) {
    return lineError(
      lineNo,
      `expected ${/^[aeiou]/.test(formatHint) ? "an" : "a"} ${formatHint} record but the keys look like ${detected ?? "no known format"}`,
    );
  }
  return { adapter, value };
}

/** A record read through a column mapping: a slime Sample, errors named by the record's columns. */
function readMappedValue(
  value: Readonly<Record<string, unknown>>,
  lineNo: number,
  formatHint: FormatId | undefined,
  path: string | undefined,
  mapping: ColumnMapping,
): LineResult {
  if (formatHint !== undefined && formatHint !== slimeAdapter.id) {
    return lineError(
      lineNo,
      `a column mapping reads records as ${slimeAdapter.id} samples, not as ${formatHint}`,
    );
  }
  const problem = mappedRecordProblem(value, mapping);
  if (problem) return lineError(lineNo, problem.message, problem.field);
  const sample = applyColumnMapping(value, mapping);
  const result = readWith(slimeAdapter, sample, lineNo, path);
  if (result.kind !== "error" || result.error.field === undefined) return result;
  const field = mappedFieldName(mapping, result.error.field, sample);
  return lineError(lineNo, result.error.message, field);
}

/** Why a line's JSON value is no record: an array says it may be a whole document on one line. */
function notObjectMessage(value: unknown): string {
  if (!Array.isArray(value)) return "a rollout line must be a JSON object";
  return (
    `a rollout line must be a JSON object, not an array (of ${value.length}): ` +
    "a JSON document on one line? Name the file .json to read it whole, or write one record per line"
  );
}

/** A segment field of a broken invariant as the record names it (FormatAdapter.tokenFields). */
function sourceFieldOf(
  adapter: FormatAdapter,
  value: Readonly<Record<string, unknown>>,
  field: string,
  row: number | undefined,
): string {
  const names = adapter.tokenFields;
  const m = /^segments\[\d+\]\.(tokenIds|lossMask|logprobs)$/.exec(field);
  if (!names || !m) return field;
  const name = names[m[1] as "tokenIds" | "lossMask" | "logprobs"];
  if (names.perRow) return `${name}[${row ?? 0}]`;
  const isRows = names.rowsIn !== undefined && Array.isArray(value[names.rowsIn]);
  return isRows ? `${names.rowsIn}[${row ?? 0}].${name}` : name;
}

/** `value` read by `adapter` into trajectories, each checked against the model's invariants. */
function readWith(
  adapter: FormatAdapter,
  value: Readonly<Record<string, unknown>>,
  lineNo: number,
  path: string | undefined,
): LineResult {
  const result = adapter.read(value, { line: lineNo, path });
  if (!result.ok) return lineError(lineNo, result.error.message, result.error.field);
  for (const t of result.trajectories) {
    const violations = checkTrajectory(t, result.proven);
    const first = violations[0];
    if (first) {
      const n = violations.length - 1;
      const more = n > 0 ? `; and ${n} more problem${n > 1 ? "s" : ""} in this trajectory` : "";
      const row = t.source.row ? `row ${t.source.row}: ` : "";
      const at = first.index === undefined ? "" : ` at token ${first.index}`;
      const field = sourceFieldOf(adapter, value, first.field, t.source.row);
      return lineError(lineNo, `${row}${first.message}${at}${more}`, field);
    }
  }
  return { kind: "trajectories", format: adapter.id, trajectories: result.trajectories };
}

/** A line's rows as a lane scan reads them: see FormatAdapter.readLanes. */
export type LaneLineResult =
  | LineResult
  | ({ readonly kind: "lanes"; readonly format: FormatId } & LaneRead);

/**
 * readRolloutLine for a file-wide lane scan comparing `lanes` (undefined: each trajectory's
 * default): the line's rows as wire lanes when its adapter reads them without trajectories (the
 * plain case), otherwise exactly what readRolloutLine gives (blank, error or trajectories), as
 * for every line read through a column `mapping`.
 */
export function readRolloutLineLanes(
  lineText: string,
  lineNo: number,
  formatHint: FormatId | undefined,
  path: string | undefined,
  lanes: readonly [string, string] | undefined,
  mapping?: ColumnMapping,
): LaneLineResult {
  // A record read through a column mapping becomes a slime Sample first: the full read.
  if (mapping) return readRolloutLine(lineText, lineNo, formatHint, path, mapping);
  if (lineText.trim().length === 0) return { kind: "blank" };
  const parsed = parseJsonLine(lineText);
  if (!parsed.ok) return { kind: "error", error: { line: lineNo, message: parsed.message } };
  const found = adapterFor(parsed.value, lineNo, formatHint);
  if (!("adapter" in found)) return found;
  const read = found.adapter.readLanes?.(found.value, lanes);
  if (read) return { kind: "lanes", format: found.adapter.id, ...read };
  return readWith(found.adapter, found.value, lineNo, path);
}

import { badLineText, createErrorLog, unlistedNote } from "../../src/core/files/errorLog";
import { recordStepOf, runPositionLabel, runPositionOf } from "../../src/core/files/runSteps";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { FormatId, LineError } from "../../src/core/formats/types";
import type { FileShard } from "../drift/driftFile";
import { readRecords } from "../files/readLines";
import type { ParsedArgs, ValidateFlags } from "./commandFlags";
import { type CommandIo, processIo } from "./commandIo";
import { VALIDATE_FORMAT_FLAGS as FORMAT_FLAG } from "./formatFlags";
import { mappingOfFlags } from "./mapFlag";
import { shardInputs } from "./shardInputs";
import { parseCommand, validateSpec } from "./spec";

/** What `validate` found in one file. */
export interface FileReport {
  readonly path: string;
  /** Detected (or forced) format; null when no line could be read. */
  readonly format: FormatId | null;
  /** Lines read, blank ones included. */
  readonly lines: number;
  readonly blank: number;
  /** Lines that loaded. */
  readonly valid: number;
  readonly trajectories: number;
  /** The first bad lines (MAX_LISTED_ERRORS); `bad` counts them all. */
  readonly errors: LineError[];
  readonly bad: number;
  /** Set when the file could not be read at all. */
  readonly readError?: string;
  /** Set when only a byte range of the file was read (`--shard` on one file). */
  readonly shard?: FileShard;
  /** The first and last step its records name (`metadata.step`), when any does. */
  readonly recordSteps?: readonly [number, number];
  /**
   * "record" when the file is a table or document (Parquet, CSV, torch.save, JSON, YAML): its
   * `lines` count records and an error's `line` is record r + 1, no line of the file's text.
   */
  readonly unit?: "record";
}

/**
 * Reads `path` line by line and checks every line. With no forced format, the first line that
 * loads fixes the file's format and later lines must match it. With `shard`, reads only the lines
 * starting in its byte range (`lines` then counts those). With `mapping`, every line is read
 * through it (`--map`).
 */
export async function validateFile(
  path: string,
  forced?: FormatId,
  shard?: FileShard,
  mapping?: ColumnMapping,
): Promise<FileReport> {
  let format = forced;
  let lines = 0;
  let blank = 0;
  let valid = 0;
  let trajectories = 0;
  const log = createErrorLog<LineError>();
  const errors = log.listed;
  const steps = stepRange();
  const part: { shard?: FileShard; unit?: "record" } = shard === undefined ? {} : { shard };
  try {
    for await (const { result, isRecord } of readRecords(path, { range: shard, format, mapping })) {
      if (isRecord) part.unit = "record";
      lines += 1;
      if (result.kind === "blank") blank += 1;
      else if (result.kind === "error") log.add(result.error);
      else {
        valid += 1;
        trajectories += result.trajectories.length;
        format ??= result.format;
        for (const t of result.trajectories) steps.add(recordStepOf(t.metadata));
      }
    }
  } catch (error) {
    const readError = error instanceof Error ? error.message : String(error);
    return {
      path,
      format: format ?? null,
      ...{ lines, blank, valid, trajectories, errors, bad: log.count, readError },
      ...part,
    };
  }
  const bad = log.count;
  const counts = { lines, blank, valid, trajectories, errors, bad };
  return { path, format: format ?? null, ...counts, ...part, ...steps.report() };
}

/** The smallest and largest step seen. */
function stepRange() {
  let first: number | undefined;
  let last: number | undefined;
  return {
    add(step: number | undefined) {
      if (step === undefined) return;
      first = first === undefined ? step : Math.min(first, step);
      last = last === undefined ? step : Math.max(last, step);
    },
    report(): { recordSteps?: readonly [number, number] } {
      return first === undefined || last === undefined ? {} : { recordSteps: [first, last] };
    },
  };
}

/**
 * 0 = every line valid, 1 = some lines bad, 2 = unreadable or nothing valid (a byte range of a
 * file, `--shard` on one file, may hold only blank lines or none).
 */
export function exitCodeOf(report: FileReport): number {
  if (report.readError !== undefined) return 2;
  if (report.valid === 0 && (report.shard === undefined || report.lines > report.blank)) return 2;
  return report.errors.length > 0 ? 1 : 0;
}

function stepsLabel([first, last]: readonly [number, number]): string {
  return first === last ? `step ${first}` : `steps ${first}–${last}`;
}

function formatReport(report: FileReport): string {
  if (report.readError !== undefined) return `${report.path}: cannot read: ${report.readError}`;
  const position = runPositionOf(report.path);
  const where = position
    ? ` (${runPositionLabel(position)})`
    : report.recordSteps
      ? ` (${stepsLabel(report.recordSteps)} in its records)`
      : "";
  // A table's or document's records have no lines of their own: they are counted as records.
  const unit = report.unit ?? "line";
  const counts =
    unit === "record"
      ? `${report.lines} records${report.blank > 0 ? `, ${report.blank} blank` : ""}, ${report.bad} bad`
      : `${report.lines} lines, ${report.blank} blank, ${report.bad} bad`;
  const head =
    `${report.path}${where}: ${report.format ?? "no readable records"}, ${report.trajectories} trajectories ` +
    `from ${report.valid} valid ${unit}s (${counts})`;
  const bad = report.errors.map((e) => `  ${badLineText(e, unit)}`);
  const unlisted = unlistedNote(report.bad, report.errors.length, unit);
  return [head, ...bad, ...(unlisted === undefined ? [] : [`  ${unlisted}`])].join("\n");
}

/** `rollout-lens validate FILE|DIR|GLOB... [--format F] [--json] [--shard I/N] [--map SPEC]`; resolves to the exit code. */
export async function validateCommand(args: string[], io: CommandIo = processIo): Promise<number> {
  const parsed = parseCommand<ValidateFlags>(validateSpec(), args, io);
  return typeof parsed === "number" ? parsed : runValidate(parsed, io);
}

/** Runs `validate` on parsed flags and files. */
export async function runValidate(
  { values, positionals }: ParsedArgs<ValidateFlags>,
  io: CommandIo = processIo,
): Promise<number> {
  if (!Object.hasOwn(FORMAT_FLAG, values.format)) {
    io.err(`validate: --format must be one of ${Object.keys(FORMAT_FLAG).join(", ")}`);
    return 2;
  }
  const mapping = mappingOfFlags("validate", values, io);
  if (typeof mapping === "number") return mapping;
  if (positionals.length === 0) {
    io.err("validate: give at least one FILE");
    return 2;
  }
  const inputs = await shardInputs("validate", positionals, values.shard, io);
  if (typeof inputs === "number") return inputs;
  const forced = FORMAT_FLAG[values.format];
  const reports: FileReport[] = [];
  for (const { path, shard } of inputs.files) {
    reports.push(await validateFile(path, forced, shard, mapping));
  }
  if (values.json) {
    const shard = inputs.shard && { index: inputs.shard.index, count: inputs.shard.count };
    io.out(JSON.stringify({ ...(shard ? { shard } : {}), files: reports.map(toJson) }));
  } else {
    for (const report of reports) io.out(formatReport(report));
  }
  return Math.max(0, ...reports.map(exitCodeOf), inputs.problems ? 2 : 0);
}

function toJson(report: FileReport): Record<string, unknown> {
  const { readError, ...rest } = report;
  return readError === undefined ? rest : { ...rest, read_error: readError };
}

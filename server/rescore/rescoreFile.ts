import { once, setMaxListeners } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { lineWithLane } from "../../src/core/formats/laneRecord";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { FormatId } from "../../src/core/formats/types";
import { logprobLaneProblem } from "../../src/core/trajectory/lanes";
import type { LaneInfo, LaneValues, Trajectory } from "../../src/core/trajectory/types";
import { readLines } from "../files/readLines";
import { SglangConnectionError, SglangTimeoutError } from "../sglang/errors";
import { Semaphore } from "../sglang/semaphore";
import type { FamilyVerdict } from "./familyGuard";
import { RESCORED_LANE, type Rescorer, rescoreInfo, rescoreTrajectory } from "./rescoreTrajectory";

/** What rescoring one file did. */
export interface RescoreReport {
  readonly lines: number;
  readonly trajectories: number;
  readonly rescored: number;
  /** Lines written back unchanged (or without some row's lane), with why. */
  readonly kept: { line: number; reason: string }[];
  /** Trajectories whose family could not be checked (never counted as a match). */
  readonly unchecked: { line: number; reason: string }[];
  /**
   * "record" when the file is a table or document (Parquet, CSV, torch.save, JSON): `lines` and
   * each `line` count its records (written back one per JSON line), not lines of its text.
   */
  unit?: "record";
}

export interface RescoreFileOptions {
  readonly lane?: string;
  /** Trajectories rescored at once (default 4). */
  readonly concurrency?: number;
  /** The family check of each trajectory; a mismatch is kept unchanged unless `force`. */
  readonly guard?: (t: Trajectory) => Promise<FamilyVerdict>;
  readonly force?: boolean;
  /** The temporary file the output is written through (renamed to `out` at the end). */
  readonly temporary: string;
}

/** An upstream that cannot be reached: the run stops instead of waiting per trajectory. */
export class UpstreamDownError extends Error {}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Run {
  readonly client: Rescorer;
  readonly options: RescoreFileOptions;
  readonly report: RescoreReport;
  readonly slots: Semaphore;
  readonly stop: AbortController;
}

/** The lane of one trajectory, or undefined (with the reason recorded) when it is kept as it was. */
async function laneOf(run: Run, t: Trajectory, lineNo: number): Promise<LaneValues | undefined> {
  const { report, options } = run;
  const keep = (reason: string) => {
    report.kept.push({ line: lineNo, reason: `${t.id}: ${reason}` });
    return undefined;
  };
  if (t.segments.length === 0) return keep("no token ids (text-only record)");
  const verdict = await options.guard?.(t);
  if (verdict?.status === "unchecked")
    report.unchecked.push({ line: lineNo, reason: `${t.id}: ${verdict.message}` });
  if (verdict?.status === "mismatch" && !options.force) {
    return keep(`family mismatch: ${verdict.message} (--force to rescore anyway)`);
  }
  await run.slots.acquire(run.stop.signal);
  try {
    const { result } = await rescoreTrajectory(run.client, t, {
      lane: options.lane,
      signal: run.stop.signal,
    });
    const problem = logprobLaneProblem(result.lane);
    if (problem !== undefined) return keep(`rejected the upstream's lane: ${problem}`);
    (report as { rescored: number }).rescored += 1;
    infoOf.set(result.lane, rescoreInfo(result));
    return result.lane;
  } catch (error) {
    if (error instanceof SglangConnectionError || error instanceof SglangTimeoutError) {
      const down = new UpstreamDownError(
        `the upstream stopped answering at line ${lineNo} (${t.id}): ${messageOf(error)}`,
      );
      run.stop.abort(down);
      throw down;
    }
    if (run.stop.signal.aborted) throw run.stop.signal.reason;
    return keep(messageOf(error));
  } finally {
    run.slots.release();
  }
}

/** The provenance of each lane returned, for the record's lane info. */
const infoOf = new WeakMap<object, LaneInfo>();

/** The text line `text` becomes: the lane added to its record, or the line as it was. */
async function lineOut(
  run: Run,
  where: { path: string; lineNo: number; text: string },
  format: FormatId | undefined,
) {
  const { path, lineNo, text } = where;
  const result = readRolloutLine(text, lineNo, format, path);
  if (result.kind === "blank") return { text };
  if (result.kind === "error") {
    const { field, message } = result.error;
    run.report.kept.push({ line: lineNo, reason: `${field ? `${field}: ` : ""}${message}` });
    return { text };
  }
  (run.report as { trajectories: number }).trajectories += result.trajectories.length;
  const lanes = await Promise.all(result.trajectories.map((t) => laneOf(run, t, lineNo)));
  const first = lanes.find((l) => l !== undefined);
  if (first === undefined) return { text, format: result.format };
  const lane = run.options.lane ?? RESCORED_LANE;
  const out = lineWithLane(text, result.format, lane, lanes, infoOf.get(first));
  return { text: out, format: result.format };
}

/**
 * Rescores every trajectory of `path` and writes every line to `out`: the lane added to each
 * record (format kept, every other field unchanged, the original bytes kept where possible),
 * blank and unreadable lines as they were. Up to `concurrency` trajectories are rescored at once,
 * lines written in order; an upstream that stops answering stops the run (UpstreamDownError).
 * Written through `options.temporary`, renamed to `out` at the end, removed on failure.
 */
export async function rescoreFile(
  client: Rescorer,
  path: string,
  out: string,
  options: RescoreFileOptions,
): Promise<RescoreReport> {
  const concurrency = options.concurrency ?? 4;
  const report: RescoreReport = { lines: 0, trajectories: 0, rescored: 0, kept: [], unchecked: [] };
  const run: Run = {
    client,
    options,
    report,
    slots: new Semaphore(concurrency),
    stop: new AbortController(),
  };
  // Every trajectory in flight or waiting for a slot listens on this one signal (and removes its
  // listener when done): more than 10 is the pipeline working, not a leak to warn about.
  setMaxListeners(0, run.stop.signal);
  const sink = createWriteStream(options.temporary, { encoding: "utf8" });
  const write = async (text: string) => {
    if (!sink.write(`${text}\n`)) await once(sink, "drain");
  };
  // Lines in flight, in order; the first line's format fixes the others' as a single read would.
  const pending: Promise<{ text: string; format?: FormatId }>[] = [];
  let format: FormatId | undefined;
  const flushOne = async () => {
    const done = await pending.shift();
    if (done === undefined) return;
    format ??= done.format;
    await write(done.text);
  };
  try {
    for await (const line of readLines(path)) {
      const { lineNo, text } = line;
      (report as { lines: number }).lines = lineNo;
      if (line.isRecord) report.unit = "record";
      // The output copies every line: one too long to read cannot be copied, so the file stops.
      if (line.error) throw new Error(`line ${lineNo}: ${line.error.message}`);
      if (run.stop.signal.aborted) throw run.stop.signal.reason;
      // Until a format is known, lines go one at a time (the first valid one decides it).
      if (format === undefined) while (pending.length > 0) await flushOne();
      const next = lineOut(run, { path, lineNo, text }, format);
      next.catch(() => {});
      pending.push(next);
      while (pending.length > concurrency * 2 || (format === undefined && pending.length > 0))
        await flushOne();
    }
    while (pending.length > 0) await flushOne();
    sink.end();
    await once(sink, "finish");
    await rename(options.temporary, out);
    report.kept.sort((a, b) => a.line - b.line);
    report.unchecked.sort((a, b) => a.line - b.line);
    return report;
  } catch (error) {
    run.stop.abort(error);
    await Promise.allSettled(pending);
    sink.destroy();
    await rm(options.temporary, { force: true });
    throw error;
  }
}

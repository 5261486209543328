import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { parseJsonLine, stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { addLaneToRecord, appendKeysToLine } from "../../src/core/formats/laneRecord";
import type { FormatId } from "../../src/core/formats/types";
import { laneNameProblem } from "../../src/core/trajectory/lanes";
import type { LaneInfo, LaneValues } from "../../src/core/trajectory/types";
import { readLines, readNumberedLine } from "../files/readLines";
import {
  RESCORED_LANE,
  type Rescorer,
  rescoreInfo,
  rescoreTrajectory,
} from "../rescore/rescoreTrajectory";
import { SglangClient } from "../sglang/sglangClient";
import type { ParsedArgs, RescoreFlags } from "./spec";
import type { CommandIo } from "./validate";

/** What rescoring one file did. */
export interface RescoreReport {
  readonly lines: number;
  readonly trajectories: number;
  readonly rescored: number;
  /** Lines written back unchanged, with why (bad line, text-only record, SGLang failure). */
  readonly kept: { line: number; reason: string }[];
}

/**
 * Rescores every trajectory of `path` and writes every line to `out`: the lane added to each
 * record (format kept, every other field unchanged, the original bytes kept where possible),
 * blank and unreadable lines as they were. Written to a temporary file, renamed at the end.
 */
export async function rescoreFile(
  client: Rescorer,
  path: string,
  out: string,
  lane = RESCORED_LANE,
): Promise<RescoreReport> {
  const temporary = `${out}.rescoring-${process.pid}`;
  const sink = createWriteStream(temporary, { encoding: "utf8" });
  const report: RescoreReport = { lines: 0, trajectories: 0, rescored: 0, kept: [] };
  let format: FormatId | undefined;
  const write = async (text: string) => {
    if (!sink.write(`${text}\n`)) await once(sink, "drain");
  };
  try {
    for await (const line of readLines(path)) {
      const { lineNo, text } = line;
      (report as { lines: number }).lines = lineNo;
      // The output copies every line: one too long to read cannot be copied, so the file stops.
      if (line.error) throw new Error(`line ${lineNo}: ${line.error.message}`);
      const result = readNumberedLine(line, format, path);
      if (result.kind === "blank") {
        await write(text);
        continue;
      }
      if (result.kind === "error") {
        const { field, message } = result.error;
        report.kept.push({ line: lineNo, reason: `${field ? `${field}: ` : ""}${message}` });
        await write(text);
        continue;
      }
      format ??= result.format;
      const lanes: (LaneValues | undefined)[] = [];
      let info: LaneInfo | undefined;
      for (const t of result.trajectories) {
        (report as { trajectories: number }).trajectories += 1;
        if (t.segments.length === 0) {
          report.kept.push({ line: lineNo, reason: `${t.id}: no token ids (text-only record)` });
          lanes.push(undefined);
          continue;
        }
        try {
          const { result: scored } = await rescoreTrajectory(client, t, { lane });
          lanes.push(scored.lane);
          info ??= rescoreInfo(scored);
          (report as { rescored: number }).rescored += 1;
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          report.kept.push({ line: lineNo, reason: `${t.id}: ${why}` });
          lanes.push(undefined);
        }
      }
      if (lanes.every((l) => l === undefined)) {
        await write(text);
        continue;
      }
      const parsed = parseJsonLine(text);
      const original = (parsed.ok ? parsed.value : {}) as Record<string, unknown>;
      const patched = addLaneToRecord(original, result.format, lane, lanes, info);
      await write(
        appendKeysToLine(text, original, patched, stringifyJsonLine) ?? stringifyJsonLine(patched),
      );
    }
    sink.end();
    await once(sink, "finish");
    await rename(temporary, out);
    return report;
  } catch (error) {
    sink.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/** `rollout-lens rescore FILE --sglang URL --out OUT [--lane NAME]`; resolves to the exit code. */
export async function runRescore(
  { values, positionals }: ParsedArgs<RescoreFlags>,
  io: CommandIo,
): Promise<number> {
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) {
    io.err("rescore: give exactly one FILE");
    return 2;
  }
  const lane = values.lane ?? RESCORED_LANE;
  const problem = laneNameProblem(lane);
  if (problem) {
    io.err(`rescore: --lane: ${problem}`);
    return 2;
  }
  const client = new SglangClient({
    upstreams: values.sglang
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean),
    health: { intervalMs: 0, reprobeMs: 60_000 },
  });
  try {
    const report = await rescoreFile(client, path, values.out, lane);
    io.out(
      `${path} -> ${values.out}: ${report.rescored} of ${report.trajectories} trajectories rescored (lane ${lane}), ${report.lines} lines`,
    );
    for (const k of report.kept) io.out(`  line ${k.line} kept unchanged: ${k.reason}`);
    return report.kept.length > 0 ? 1 : 0;
  } catch (error) {
    io.err(`rescore: ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  } finally {
    await client.close();
  }
}

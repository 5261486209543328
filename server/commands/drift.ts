import { DRIFT_MODES, type DriftMode } from "../../src/core/drift/types";
import type { Shard } from "../../src/core/files/shard";
import { driftFile, type FileDrift, hasDrift, type TrajectoryDrift } from "../drift/driftFile";
import { driftExitCode, humanReport, jsonReport, jsonResults } from "../drift/driftReport";
import { createDriftTokenizers } from "../drift/driftTokenizers";
import { jsonWriter, openFiles } from "../scan/jsonStream";
import type { DriftFlags, ParsedArgs } from "./commandFlags";
import { type CommandIo, processIo } from "./commandIo";
import { DRIFT_FORMAT_FLAGS as FORMAT_FLAG } from "./formatFlags";
import { mappingOfFlags } from "./mapFlag";
import { shardInputs } from "./shardInputs";
import { driftSpec, parseCommand } from "./spec";

const MODE_FLAG: Readonly<Record<string, readonly DriftMode[]>> = {
  roundtrip: ["roundtrip"],
  template: ["template"],
  text: ["text"],
  all: DRIFT_MODES,
};

/** `rollout-lens drift FILE|DIR|GLOB... [--tokenizer T] [--format F] [--mode M] [--json] [--jobs N] [--shard I/N] [--map SPEC]`. */
export async function driftCommand(args: string[], io: CommandIo = processIo): Promise<number> {
  const parsed = parseCommand<DriftFlags>(driftSpec(), args, io);
  return typeof parsed === "number" ? parsed : runDrift(parsed, io);
}

/** Runs `drift` on parsed flags and files. */
export async function runDrift(
  { values, positionals }: ParsedArgs<DriftFlags>,
  io: CommandIo = processIo,
): Promise<number> {
  if (!Object.hasOwn(FORMAT_FLAG, values.format)) {
    io.err(`drift: --format must be one of ${Object.keys(FORMAT_FLAG).join(", ")}`);
    return 2;
  }
  const modes = MODE_FLAG[values.mode];
  if (!modes) {
    io.err(`drift: --mode must be one of ${Object.keys(MODE_FLAG).join(", ")}`);
    return 2;
  }
  const mapping = mappingOfFlags("drift", values, io);
  if (typeof mapping === "number") return mapping;
  if (positionals.length === 0) {
    io.err("drift: give at least one FILE");
    return 2;
  }
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) {
    io.err("drift: --jobs must be a positive integer");
    return 2;
  }
  const inputs = await shardInputs("drift", positionals, values.shard, io);
  if (typeof inputs === "number") return inputs;
  const tokenizers = createDriftTokenizers({ jobs });
  const picked = values.tokenizer;
  const files: FileDrift[] = [];
  try {
    // A named tokenizer that cannot load stops the run before any file is read.
    if (picked !== undefined) {
      const loaded = await tokenizers.load(picked).catch((error: unknown) => error);
      if (loaded instanceof Error) {
        io.err(`drift: ${loaded.message}`);
        return 2;
      }
    }
    const format = FORMAT_FLAG[values.format];
    if (values.json) {
      // Streamed: each check's result is written as soon as it is final, so memory holds only
      // what is in flight, however big the input (the counts follow each file's results).
      const json = jsonWriter(io);
      json.write(openFiles(shardField(inputs.shard)));
      for (const [k, { path, shard }] of inputs.files.entries()) {
        json.write(`${k > 0 ? "," : ""}{"path":${JSON.stringify(path)},"results":[`);
        let first = true;
        const onChecked = (t: TrajectoryDrift) => {
          for (const result of jsonResults(t)) {
            json.write(`${first ? "" : ","}${JSON.stringify(result)}`);
            first = false;
          }
        };
        const file = await driftFile(path, {
          ...{ tokenizers, picked, modes, format, shard, onChecked, mapping },
          keep: () => false,
        });
        files.push(file);
        const { path: _path, results: _results, ...rest } = jsonReport(file);
        json.write(`],${JSON.stringify(rest).slice(1)}`);
      }
      json.end("]}");
    } else {
      for (const { path, shard } of inputs.files) {
        // Only drifted trajectories are printed: only those are kept.
        const options = { tokenizers, picked, modes, format, shard, mapping, keep: hasDrift };
        files.push(await driftFile(path, options));
      }
    }
  } finally {
    await tokenizers.close();
  }
  if (!values.json) for (const file of files) for (const line of humanReport(file)) io.out(line);
  return Math.max(driftExitCode(files), inputs.problems ? 2 : 0);
}

function shardField(shard: Shard | undefined): { shard?: Shard } {
  return shard === undefined ? {} : { shard: { index: shard.index, count: shard.count } };
}

// The readers of binary rollout files (torch.save dumps, Parquet tables) as numbered JSON lines:
// a module of their own, imported by readLines only for such a file, so a JSONL scan (and each
// scan worker) does not load hyparquet and its codecs.
import { stat } from "node:fs/promises";
import { asyncBufferFromFile } from "hyparquet";
import {
  rolloutDumpOfColumns,
  sampleFactsOf,
  withSampleFacts,
} from "../../src/core/files/dashboardColumns";
import { rolloutDumpSource, torchDumpOf } from "../../src/core/files/torchRecords";
import { parseJsonLine, stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { openTorchFile } from "../../src/core/torch/torchFile";
import { parquetLines } from "./parquetReader";
import { type NumberedLine, trainDumpPathsOf } from "./readLines";

/** The samples of a slime/miles `.pt` rollout dump as JSON lines, sample r as line r + 1. */
export async function* torchLines(path: string): AsyncGenerator<NumberedLine> {
  const paths = [path, ...(await trainDumpPathsOf(path))];
  const files = await Promise.all(
    paths.map(async (name) => ({ name, file: await asyncBufferFromFile(name) })),
  );
  const source = await rolloutDumpSource(files);
  for (const group of source.groups) {
    const records = await source.read(group.start, group.start + group.rows);
    for (const [k, value] of records.entries()) {
      yield { lineNo: group.start + k + 1, text: stringifyJsonLine(value), isRecord: true };
    }
  }
}

/**
 * The rows of a Parquet file; a miles dashboard column file's rows get the reward, status and
 * group of the rollout dump beside it (core/files/dashboardColumns.ts), when it is there.
 */
export async function* parquetLinesWithDump(path: string): AsyncGenerator<NumberedLine> {
  const dumpPath = rolloutDumpOfColumns(path);
  const dumpThere = dumpPath !== undefined && (await stat(dumpPath).catch(() => undefined));
  if (!dumpThere) {
    yield* parquetLines(path);
    return;
  }
  const dump = torchDumpOf(await openTorchFile(await asyncBufferFromFile(dumpPath)));
  const facts = sampleFactsOf(dump);
  for await (const line of parquetLines(path)) {
    const parsed = line.error ? undefined : parseJsonLine(line.text);
    if (!parsed?.ok) yield line;
    else yield { ...line, text: stringifyJsonLine(withSampleFacts(parsed.value, facts)) };
  }
}

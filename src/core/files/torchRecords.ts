import { isRecord } from "../isRecord";
import { openTorchFile, plainValues, type TorchFile } from "../torch/torchFile";
import { type ByteRangeFile, readBytes, TorchFileError } from "../torch/zipEntries";
import type { RecordSource } from "./recordIndexer";
import { skyrlRecordSource } from "./skyrlBatch";
import { isBarePickleHead, SNIFF_BYTES } from "./sniffFile";
import { type TrainJoin, trainJoinOf, trainSampleFor, withTrainSample } from "./trainDump";

/*
 * slime and miles dumps written with torch.save (docs/format.md "slime and miles `.pt` dumps"):
 * a rollout dump `{"rollout_id", "samples": [Sample.to_dict()], "metadata"?}` is a table of
 * samples, each read as the slime Sample it is (formats/slime.ts); a train dump
 * (`format_version: 2`, `samples` of per-sample trainer tensors) has lanes but no token ids,
 * and is joined to its rollout dump (trainDump.ts). Sample r counts as line r + 1.
 */

/** What a torch.save file holds, as far as rollouts go. */
export type TorchDumpKind = "rollout" | "train";

export interface TorchDump {
  readonly kind: TorchDumpKind;
  readonly torch: TorchFile;
  readonly samples: readonly unknown[];
  /** The dump-level keys other than `samples` (rollout_id, metadata, format_version, ...). */
  readonly header: Readonly<Record<string, unknown>>;
}

/** Samples read together when indexing (one chunk of the record source). */
export const TORCH_CHUNK_ROWS = 256;

/** The top-level keys of a torch.save value, for an error that says what the file holds. */
function describeRoot(root: unknown): string {
  if (Array.isArray(root)) return `a list of ${root.length} values`;
  if (!isRecord(root)) return `a ${root === null ? "None" : typeof root} value`;
  const keys = Object.keys(root);
  return keys.length === 0
    ? "an empty dict"
    : `keys ${keys.slice(0, 12).join(", ")}${keys.length > 12 ? ", …" : ""}`;
}

/** The slime/miles dump a torch.save file holds, or an error saying what it holds instead. */
export function torchDumpOf(torch: TorchFile): TorchDump {
  const root = torch.root;
  const samples = isRecord(root) ? root.samples : undefined;
  if (!isRecord(root) || !Array.isArray(samples)) {
    throw new TorchFileError(`a torch.save file with no rollout samples: ${describeRoot(root)}`);
  }
  const { samples: _samples, ...header } = root;
  const first = samples.find(isRecord);
  const isTrain =
    header.format_version !== undefined && first !== undefined && !("tokens" in first);
  return { kind: isTrain ? "train" : "rollout", torch, samples, header };
}

/** Sample `k` of a rollout dump as the record the slime reader reads: plain values, dump noted. */
export function rolloutRecord(sample: unknown, header: Readonly<Record<string, unknown>>): unknown {
  if (!isRecord(sample)) return sample;
  const dump: Record<string, unknown> = { rollout_id: header.rollout_id ?? null };
  if (isRecord(header.metadata) && Object.keys(header.metadata).length > 0) {
    dump.metadata = header.metadata;
  }
  return { ...sample, slime_dump: dump };
}

/**
 * The samples of a rollout dump as a record source: storages read per chunk of samples. With
 * `train`, each sample gets its train dump's lanes (trainDump.ts).
 */
export function torchRecordSource(dump: TorchDump, train?: TrainJoin): RecordSource {
  if (dump.kind !== "rollout") {
    throw new TorchFileError(
      "a slime/miles train dump (format_version 2) holds trainer lanes but no token ids: open its rollout dump, or the --dump-details folder holding both",
    );
  }
  const rows = dump.samples.length;
  const first = dump.samples[0];
  const groups: { start: number; rows: number; bytes: number }[] = [];
  const perRow = dump.torch.file.byteLength / Math.max(1, rows);
  // A small first chunk, so the first rows show before the rest is read.
  for (let start = 0; start < rows; ) {
    const size = start === 0 ? Math.min(16, rows) : TORCH_CHUNK_ROWS;
    const n = Math.min(size, rows - start);
    groups.push({ start, rows: n, bytes: Math.round(n * perRow) });
    start += n;
  }
  return {
    rows,
    columns: isRecord(first) ? Object.keys(first) : [],
    groups,
    read: async (start, end) => {
      const plain = (await plainValues(dump.torch, dump.samples.slice(start, end))) as unknown[];
      const records = plain.map((sample) => rolloutRecord(sample, dump.header));
      if (!train) return records;
      return Promise.all(
        records.map(async (record, k) => {
          if (!isRecord(record)) return record;
          const trainSample = await trainSampleFor(train, start + k, record.index);
          return trainSample ? withTrainSample(record, trainSample) : record;
        }),
      );
    },
  };
}

/** A file and the name an error calls it by. */
export interface NamedFile {
  readonly name: string;
  readonly file: ByteRangeFile;
}

/** Opens a dump; with `named`, an error names the file (one of several read together). */
async function openDump(f: NamedFile, named: boolean): Promise<{ name: string; dump: TorchDump }> {
  try {
    return { name: f.name, dump: torchDumpOf(await openTorchFile(f.file)) };
  } catch (error) {
    if (!named) throw error;
    throw new TorchFileError(`${f.name}: ${(error as Error).message}`);
  }
}

/**
 * slime/miles dump files read together (a rollout dump and the train dumps beside it, or several
 * `.pt` dropped at once): their one rollout dump as a record source, each sample joined to its
 * sample of the train dumps (several ranks' files together). One implementation for the CLI,
 * the server's step statistics and the browser's file worker. Errors name the file: none or
 * several rollout dumps among them, a train dump of another rollout, a file that is no dump.
 */
export async function rolloutDumpSource(files: readonly NamedFile[]): Promise<RecordSource> {
  const [only] = files;
  if (files.length === 1 && only) {
    const head = await readBytes(only.file, 0, Math.min(SNIFF_BYTES, only.file.byteLength));
    if (isBarePickleHead(head)) return skyrlRecordSource(only.file);
  }
  const dumps = await Promise.all(files.map((f) => openDump(f, files.length > 1)));
  const rollouts = dumps.filter((d) => d.dump.kind === "rollout");
  const names = dumps.map((d) => d.name).join(", ");
  const [rollout] = rollouts;
  if (!rollout || rollouts.length > 1) {
    if (dumps.length === 1 && !rollout) return torchRecordSource(dumps[0]?.dump as TorchDump);
    throw new TorchFileError(
      rollouts.length === 0
        ? `no rollout dump among ${names}: open a rollout_data/{id}.pt with the train dumps of that rollout`
        : `${rollouts.length} rollout dumps read together (${rollouts.map((d) => d.name).join(", ")}): open one at a time, with the train dumps of that rollout`,
    );
  }
  const id = rollout.dump.header.rollout_id;
  const trains = dumps.filter((d) => d.dump.kind === "train");
  for (const train of trains) {
    const of = train.dump.header.rollout_id;
    if (of !== undefined && id !== undefined && of !== id) {
      throw new TorchFileError(
        `${train.name} is a train dump of rollout ${String(of)}, not of ${rollout.name} (rollout ${String(id)})`,
      );
    }
  }
  return torchRecordSource(rollout.dump, trainJoinOf(trains.map((d) => d.dump)));
}

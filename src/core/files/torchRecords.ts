import { openTorchFile, plainValues, type TorchFile } from "../torch/torchFile";
import { type ByteRangeFile, TorchFileError } from "../torch/zipEntries";
import type { RecordSource } from "./recordIndexer";
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The top-level keys of a torch.save value, for an error that says what the file holds. */
function describeRoot(root: unknown): string {
  if (Array.isArray(root)) return `a list of ${root.length} values`;
  if (!isObject(root)) return `a ${root === null ? "None" : typeof root} value`;
  const keys = Object.keys(root);
  return keys.length === 0
    ? "an empty dict"
    : `keys ${keys.slice(0, 12).join(", ")}${keys.length > 12 ? ", …" : ""}`;
}

/** The slime/miles dump a torch.save file holds, or an error saying what it holds instead. */
export function torchDumpOf(torch: TorchFile): TorchDump {
  const root = torch.root;
  const samples = isObject(root) ? root.samples : undefined;
  if (!isObject(root) || !Array.isArray(samples)) {
    throw new TorchFileError(`a torch.save file with no rollout samples: ${describeRoot(root)}`);
  }
  const { samples: _samples, ...header } = root;
  const first = samples.find(isObject);
  const isTrain =
    header.format_version !== undefined && first !== undefined && !("tokens" in first);
  return { kind: isTrain ? "train" : "rollout", torch, samples, header };
}

/** Sample `k` of a rollout dump as the record the slime reader reads: plain values, dump noted. */
export function rolloutRecord(sample: unknown, header: Readonly<Record<string, unknown>>): unknown {
  if (!isObject(sample)) return sample;
  const dump: Record<string, unknown> = { rollout_id: header.rollout_id ?? null };
  if (isObject(header.metadata) && Object.keys(header.metadata).length > 0) {
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
    columns: isObject(first) ? Object.keys(first) : [],
    groups,
    read: async (start, end) => {
      const plain = (await plainValues(dump.torch, dump.samples.slice(start, end))) as unknown[];
      const records = plain.map((sample) => rolloutRecord(sample, dump.header));
      if (!train) return records;
      return Promise.all(
        records.map(async (record, k) => {
          if (!isObject(record)) return record;
          const trainSample = await trainSampleFor(train, start + k, record.index);
          return trainSample ? withTrainSample(record, trainSample) : record;
        }),
      );
    },
  };
}

/**
 * A slime/miles rollout dump as a record source, each sample joined to its sample of the train
 * dumps `trainFiles` (several ranks' files together): one implementation for the CLI, the
 * server's step statistics and the browser's file worker. A train dump file that holds no train
 * dump is an error naming it.
 */
export async function rolloutDumpSource(
  file: ByteRangeFile,
  trainFiles: readonly { readonly name: string; readonly file: ByteRangeFile }[] = [],
): Promise<RecordSource> {
  const dump = torchDumpOf(await openTorchFile(file));
  const trains: TorchDump[] = [];
  for (const train of trainFiles) {
    let opened: TorchDump;
    try {
      opened = torchDumpOf(await openTorchFile(train.file));
    } catch (error) {
      throw new TorchFileError(`train dump ${train.name}: ${(error as Error).message}`);
    }
    if (opened.kind !== "train") {
      throw new TorchFileError(
        `train dump ${train.name}: holds token ids, not a train dump's samples`,
      );
    }
    trains.push(opened);
  }
  return torchRecordSource(dump, trainJoinOf(trains));
}

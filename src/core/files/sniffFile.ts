/*
 * A file that is not what it seems gets a word, not a JSON error (docs/format.md "Files that are
 * not rollouts"): the first bytes of a file that Rollout Lens does not read as records say what
 * it is and what to do. ZIP (torch.save) and Parquet files are read by their own readers; this
 * names the rest before any line is parsed as JSON.
 */

/** Bytes the sniffer looks at. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Uint8Array, magic: readonly number[]) =>
  head.length >= magic.length && magic.every((b, k) => head[k] === b);

/** A Parquet file's first 4 bytes, "PAR1" (its footer ends with them too). */
export const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31] as const;

/** True when the bytes start like a Parquet file ("PAR1"). */
export function isParquetHead(head: Uint8Array): boolean {
  return startsWith(head, PARQUET_MAGIC);
}

/** True when the bytes start like a ZIP archive (a torch.save file's current form). */
export function isZipHead(head: Uint8Array): boolean {
  return startsWith(head, [0x50, 0x4b, 0x03, 0x04]);
}

/**
 * How ART's `serialize_trajectory_groups` (`yaml.dump` of a list of groups, keys sorted) starts:
 * each group is `{metadata, trajectories}`, so the file opens with one of these.
 */
const ART_YAML_HEADS = ["- metadata:", "- trajectories:"] as const;

const asciiBytes = (text: string) => Array.from(text, (c) => c.charCodeAt(0));

/** True when the bytes start like ART's trajectories YAML (read whole: formats/artYaml.ts). */
export function isArtYamlHead(head: Uint8Array): boolean {
  return ART_YAML_HEADS.some((text) => startsWith(head, asciiBytes(text)));
}

/**
 * True when the bytes start like a bare Python pickle (protocol 2-5) that is not a legacy
 * torch.save file: read as a SkyRL `dumped_data/*.pkl` (skyrlBatch.ts), which names anything else.
 */
export function isBarePickleHead(head: Uint8Array): boolean {
  return (
    head[0] === 0x80 &&
    (head[1] ?? 0) >= 2 &&
    (head[1] ?? 0) <= 5 &&
    !startsWith(head, LEGACY_TORCH)
  );
}

/** True when a reader of dumps (torch.save ZIP, SkyRL pickle) reads the file: rolloutDumpSource. */
export function isDumpHead(head: Uint8Array): boolean {
  return isZipHead(head) || isBarePickleHead(head);
}

/** torch.save's legacy (pre-ZIP) form starts with this pickled magic number. */
const LEGACY_TORCH = [0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8];

/**
 * What a binary file is, as a sentence, when its first bytes say it is one no reader here
 * reads as it is; undefined for text (JSON lines) and for ZIP / Parquet, which have readers.
 */
export function binaryFileProblem(head: Uint8Array): string | undefined {
  if (startsWith(head, [0x1f, 0x8b])) {
    return "a gzip-compressed file: decompress it first (gunzip -k FILE), then open the result";
  }
  if (startsWith(head, [0x28, 0xb5, 0x2f, 0xfd])) {
    return "a zstd-compressed file: decompress it first (zstd -d FILE), then open the result";
  }
  if (startsWith(head, LEGACY_TORCH)) {
    return "a legacy torch.save file (the pre-ZIP format): load it and torch.save it again with a current torch, which writes the ZIP format read here";
  }
  if (startsWith(head, [0x42, 0x5a, 0x68])) {
    return "a bzip2-compressed file: decompress it first (bunzip2 -k FILE)";
  }
  if (startsWith(head, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) {
    return "an xz-compressed file: decompress it first (xz -dk FILE)";
  }
  return arrowProblem(head);
}

/** "ARROW1": an Arrow IPC file (Feather v2) starts and ends with it. */
const ARROW_FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31];
/** An Arrow IPC stream's first message starts with the continuation marker 0xFFFFFFFF. */
const ARROW_STREAM_MARKER = [0xff, 0xff, 0xff, 0xff];

/**
 * An Apache Arrow file, with the command that writes it as Parquet (read here): the IPC stream a
 * Hugging Face `datasets` `save_to_disk` shard is (`data-00000-of-00001.arrow`), or an Arrow IPC
 * file (Feather v2). No text file starts with either: 0xFF is never UTF-8.
 */
function arrowProblem(head: Uint8Array): string | undefined {
  if (startsWith(head, ARROW_STREAM_MARKER)) {
    return (
      "an Apache Arrow stream (a Hugging Face datasets save_to_disk shard): write it as Parquet " +
      'first, e.g. python3 -c "import sys, datasets; ' +
      'datasets.Dataset.from_file(sys.argv[1]).to_parquet(sys.argv[2])" FILE.arrow FILE.parquet'
    );
  }
  if (startsWith(head, ARROW_FILE_MAGIC)) {
    return (
      "an Apache Arrow file (Feather v2): write it as Parquet first, e.g. python3 -c " +
      '"import sys, pyarrow.feather as f, pyarrow.parquet as pq; ' +
      'pq.write_table(f.read_table(sys.argv[1]), sys.argv[2])" FILE FILE.parquet'
    );
  }
  return undefined;
}

/**
 * The kind of delimited text a file name says (`.csv`, `.tsv`: a DataFrame's `to_csv`, a W&B
 * table's CSV export), read whole as a table (core/files/csvRecords.ts); undefined for others.
 */
export function delimitedTextKind(name: string): "csv" | "tsv" | undefined {
  const ext = /\.(csv|tsv)$/i.exec(name)?.[1]?.toLowerCase();
  return ext === "csv" || ext === "tsv" ? ext : undefined;
}

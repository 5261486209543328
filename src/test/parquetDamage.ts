import type { FileMetaData } from "hyparquet";
import { parquetMetadata } from "hyparquet";
import { ByteWriter } from "hyparquet-writer";
import { writeMetadata } from "hyparquet-writer/src/metadata.js";

/*
 * Damaged Parquet files for the reader's tests and the fuzz harness: a valid file's column data
 * with a footer that lies (rewritten with hyparquet-writer's own footer writer), and seeded
 * one-byte changes (test-support/fuzz).
 */

/** `buffer` with its footer rewritten by `edit` (the column data kept byte for byte). */
export function withFooter(
  buffer: ArrayBuffer,
  edit: (metadata: FileMetaData) => void,
): ArrayBuffer {
  const metadata = parquetMetadata(buffer);
  const footerLength = new DataView(buffer).getUint32(buffer.byteLength - 8, true);
  const dataEnd = buffer.byteLength - 8 - footerLength;
  edit(metadata);
  const writer = new ByteWriter();
  writer.appendBytes(new Uint8Array(buffer, 0, dataEnd));
  const { metadata_length: _, ...rest } = metadata;
  writeMetadata(writer, rest as FileMetaData);
  writer.appendUint32(0x31524150);
  return writer.getBuffer();
}

/** A footer claiming `rows` rows in its first row group (and as many values in each chunk). */
export function claimingRows(buffer: ArrayBuffer, rows: number): ArrayBuffer {
  return withFooter(buffer, (metadata) => {
    const group = metadata.row_groups[0];
    if (!group) return;
    group.num_rows = BigInt(rows);
    metadata.num_rows = BigInt(rows);
    for (const chunk of group.columns)
      if (chunk.meta_data) chunk.meta_data.num_values = BigInt(rows);
  });
}

/**
 * A footer whose last column chunk runs `beyond` bytes past the end of the column data (its
 * declared compressed size grown), as a file cut short after its footer was written reads.
 */
export function chunkBeyondEnd(buffer: ArrayBuffer, beyond: number): ArrayBuffer {
  return withFooter(buffer, (metadata) => {
    const meta = metadata.row_groups.at(-1)?.columns.at(-1)?.meta_data;
    if (meta) meta.total_compressed_size = BigInt(Number(meta.total_compressed_size) + beyond);
  });
}

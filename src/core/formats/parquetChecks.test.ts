import { readFileSync } from "node:fs";
import { parquetMetadata } from "hyparquet";
import { describe, expect, it } from "vitest";
import { chunkBeyondEnd, claimingRows } from "../../test/parquetDamage";
import { artParquet, primeRolloutParquet, primeSamplesParquet } from "../../test/parquetFixtures";
import { openParquet, readParquetRecords } from "./parquet";
import { checkGroupPages, checkParquetFooter } from "./parquetChecks";

const asyncBuffer = (buffer: ArrayBuffer) => ({
  byteLength: buffer.byteLength,
  slice: async (start: number, end?: number) => buffer.slice(start, end),
});

/** One-byte changes of primeRolloutParquet(2) that made hyparquet loop for ever (fuzz seeds). */
const LOOPING = [161, 230, 327, 396].map((seed) => {
  const bytes = readFileSync(
    new URL(`../../../test-support/fuzz/regressions/parquet-byte-${seed}.parquet`, import.meta.url),
  );
  return { seed, buffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) };
});

describe("Parquet size checks", () => {
  it("pass every fixture a producer writes", async () => {
    for (const buffer of [
      primeRolloutParquet(2),
      primeRolloutParquet(1, "ZSTD"),
      primeSamplesParquet(),
      artParquet(),
    ]) {
      const parquet = await openParquet(asyncBuffer(buffer));
      const records = await readParquetRecords(parquet, 0, parquet.rows);
      expect(records).toHaveLength(parquet.rows);
    }
  });

  it("refuse a 2 KB footer claiming a billion rows before reading a row", async () => {
    const lying = claimingRows(primeRolloutParquet(3), 1e9);
    expect(lying.byteLength).toBeLessThan(5000);
    await expect(openParquet(asyncBuffer(lying))).rejects.toThrow(
      /declares 1000000000 rows, more than a \d+-byte file can hold/,
    );
  });

  it("refuse column data that runs past the file's data, naming its row group and column", () => {
    const cut = chunkBeyondEnd(primeRolloutParquet(3), 1000);
    expect(() => checkParquetFooter(parquetMetadata(cut), cut.byteLength)).toThrow(
      /row group 0 \(rows 1–3\), column "seed": its data \(bytes \d+–\d+\) lies outside/,
    );
  });

  it("refuse the page headers that made the library loop, naming row group, column and byte", async () => {
    for (const { seed, buffer } of LOOPING) {
      const metadata = parquetMetadata(buffer);
      const file = asyncBuffer(buffer);
      const errors: string[] = [];
      for (let g = 0; g < metadata.row_groups.length; g++) {
        await checkGroupPages(file, metadata, g).catch((e: Error) => errors.push(e.message));
      }
      expect(errors, `seed ${seed}`).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^row group 1 \(rows 3–3\), column "\w+", page at byte \d+: (the page header's \w+ is missing or invalid|unknown page encoding)$/,
      );
    }
  });
});

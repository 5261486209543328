import type { Compressors } from "hyparquet";
import { decompressZstd } from "hyparquet-compressors";

/**
 * Codecs beyond hyparquet's own (uncompressed and Snappy, in plain JS): ZSTD, which polars and ART
 * write, through `fzstd` (plain JS). Only that decoder is imported (named), so the others of
 * hyparquet-compressors stay out of the browser worker's bundle. Its Snappy decoder is left out on
 * purpose: it compiles WebAssembly when its module loads, which the app's Content Security Policy
 * (no 'wasm-unsafe-eval') refuses, and that failure would stop the worker from reading any file.
 * A GZIP, Brotli or LZ4 file fails with hyparquet's "unsupported compression codec" error, naming it.
 */
export const PARQUET_COMPRESSORS: Compressors = {
  ZSTD: (input) => decompressZstd(input),
};

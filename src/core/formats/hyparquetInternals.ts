/*
 * The one door to hyparquet's internals. The fast list reader (parquetLists.ts), the head reader
 * (parquetHead.ts) and the bounds checks (parquetChecks.ts) decode pages themselves, with the
 * page-level functions hyparquet's package `exports` lists under `./src/*.js` but does not
 * document as its API. Everything else uses hyparquet's public entry (`hyparquet`). The version is
 * pinned exactly in package.json: on an upgrade, check these signatures here and nowhere else.
 * The architecture test keeps every other core module off `hyparquet/src/*`.
 */
export { parquetHeader, readColumn } from "hyparquet/src/column.js";
export { DEFAULT_PARSERS } from "hyparquet/src/convert.js";
export { decompressPage } from "hyparquet/src/datapage.js";
export { readRleBitPackedHybrid } from "hyparquet/src/encoding.js";
export { readPlain } from "hyparquet/src/plain.js";
export { getTreePath } from "hyparquet/src/schema.js";

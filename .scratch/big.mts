import { writeFileSync } from "node:fs";
import { primeRolloutParquet } from "../src/test/parquetFixtures";
import { claimingRows, chunkBeyondEnd } from "../src/test/parquetDamage";
writeFileSync("/tmp/rd/rows1e9.parquet", new Uint8Array(claimingRows(primeRolloutParquet(3), 1e9)));
writeFileSync("/tmp/rd/beyond.parquet", new Uint8Array(chunkBeyondEnd(primeRolloutParquet(3), 1000)));

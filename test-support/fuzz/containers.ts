import { readFileSync } from "node:fs";
import {
  artParquet,
  primeRolloutParquet,
  primeSamplesParquet,
} from "../../src/test/parquetFixtures";

/*
 * The containers the fuzz harness damages (docs/format.md "Bounded reading"), each with valid
 * files to start from. A new container is one entry: its name, file extension and seed files;
 * the harness reads every case through the real reader (`validate`'s, server/files/readLines.ts,
 * Parquet on its worker thread). A container whose reader is not `validate`'s gives its own `read`.
 */

export interface FuzzOutcome {
  /** `ok`: read, bad lines (if any) reported as errors; `rejected`: the whole file refused. */
  readonly kind: "ok" | "rejected";
  /** The file's error, or its bad lines' first messages. */
  readonly messages: readonly string[];
}

export interface FuzzContainer {
  readonly name: string;
  readonly ext: string;
  /** Valid files of this container, mutated case by case. */
  readonly seeds: () => readonly Uint8Array[];
  /** Reads one damaged file; default: the `validate` command's reader. */
  readonly read?: (path: string) => Promise<FuzzOutcome>;
}

const fixture = (name: string) =>
  readFileSync(new URL(`../../src/test/fixtures/${name}`, import.meta.url));
const bytesOf = (buffer: ArrayBuffer) => new Uint8Array(buffer);

export const FUZZ_CONTAINERS: readonly FuzzContainer[] = [
  {
    name: "jsonl",
    ext: "jsonl",
    seeds: () =>
      ["reference-slime.jsonl", "reference-rollout-lens.jsonl", "reference-atropos.jsonl"].map(
        (f) => new Uint8Array(fixture(f)),
      ),
  },
  {
    name: "json",
    ext: "json",
    seeds: () => {
      const atif = fixture("reference-atif.jsonl").toString("utf8").split("\n")[0] ?? "{}";
      const slime = fixture("reference-slime.jsonl").toString("utf8").trim();
      const encode = (text: string) => new TextEncoder().encode(text);
      return [encode(JSON.stringify(JSON.parse(atif), null, 2)), encode(`[${slime}]`)];
    },
  },
  {
    name: "parquet",
    ext: "parquet",
    seeds: () => [
      bytesOf(primeRolloutParquet(2)),
      bytesOf(primeRolloutParquet(1, "ZSTD")),
      bytesOf(primeSamplesParquet()),
      bytesOf(artParquet()),
    ],
  },
];

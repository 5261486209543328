import { stat } from "node:fs/promises";
import { byteRangeOfShard, parseShard, type Shard, shardOfPath } from "../../src/core/files/shard";
import type { FileShard } from "../drift/driftFile";
import { expandInputs } from "../files/expandInputs";
import type { CommandIo } from "./commandIo";

/** One file a command checks, whole or (with `--shard` on one file) a byte range of it. */
export interface ShardedInput {
  readonly path: string;
  readonly shard?: FileShard;
}

/** The files this run checks. */
export interface ShardedInputs {
  readonly files: readonly ShardedInput[];
  /** `--shard`, when given. */
  readonly shard?: Shard;
  /** True when some argument named no file (already reported; the run still checks the rest). */
  readonly problems: boolean;
}

/**
 * The arguments of a checking command expanded (directories, globs: `expandInputs`) and, with
 * `--shard I/N`, cut to this shard's part: with several files, the files whose path hashes to I
 * (whole files, the same split on every machine); with one file, the lines starting in its I-th
 * byte range. A file that cannot be stat'ed is given to one shard by its path hash, so exactly one
 * shard reports it unreadable. Resolves to the exit code 2 when `--shard` is malformed.
 */
export async function shardInputs(
  command: string,
  args: readonly string[],
  shardFlag: string | undefined,
  io: CommandIo,
): Promise<ShardedInputs | number> {
  let shard: Shard | undefined;
  if (shardFlag !== undefined) {
    try {
      shard = parseShard(shardFlag);
    } catch (error) {
      io.err(`${command}: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
  }
  const expanded = await expandInputs(args);
  for (const problem of expanded.problems) io.err(`${command}: ${problem}`);
  for (const note of expanded.notes) io.err(`${command}: note: ${note}`);
  const problems = expanded.problems.length > 0;
  if (shard === undefined) return { files: expanded.files.map((path) => ({ path })), problems };
  const only = expanded.files.length === 1 ? expanded.files[0] : undefined;
  if (only !== undefined) {
    const info = await stat(only).catch(() => undefined);
    if (info?.isFile()) {
      const range = byteRangeOfShard(info.size, shard);
      const fileShard = { index: shard.index, count: shard.count, ...range, size: info.size };
      return { files: [{ path: only, shard: fileShard }], shard, problems };
    }
  }
  const files = expanded.files
    .filter((path) => shardOfPath(path, shard.count) === shard.index)
    .map((path) => ({ path }));
  return { files, shard, problems };
}

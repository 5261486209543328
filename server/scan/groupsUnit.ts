import { stableHash } from "../../src/core/files/shard";
import { forestCollector, type LocatedForest } from "../../src/core/forest/forestOf";
import type { FormatId, LineError } from "../../src/core/formats/types";
import type { ShardedInput } from "../commands/shardInputs";
import { readRecords } from "../files/readLines";

/** What `groups` found in one file. */
export interface FileGroupsReport {
  readonly path: string;
  readonly format: FormatId | null;
  readonly groups: readonly LocatedForest[];
  readonly errors: readonly LineError[];
  readonly readError?: string;
  /** "record" when the file is a table or document: a `line` is its record's number (as validate's). */
  readonly unit?: "record";
}

export interface GroupsUnitOptions {
  /** Near-duplicate distance in tokens (docs/forest.md). */
  readonly nearK: number;
}

/**
 * Reads `path` and builds the forest and forensics of every group in it. `keep` picks the groups
 * this shard reports (`--shard` on one file: by a hash of the group's key, so a group whose
 * members sit on lines far apart is never cut in two).
 */
export async function groupsOfFile(
  path: string,
  nearK: number,
  keep?: (key: string) => boolean,
): Promise<FileGroupsReport> {
  let format: FormatId | undefined;
  const errors: LineError[] = [];
  const collector = forestCollector({ nearK, isDetailed: false, keep });
  const place: { unit?: "record" } = {};
  try {
    for await (const { result, isRecord } of readRecords(path)) {
      if (isRecord) place.unit = "record";
      if (result.kind === "blank") continue;
      if (result.kind === "error") {
        errors.push(result.error);
        continue;
      }
      format ??= result.format;
      collector.addLine(result.trajectories, result.format);
    }
  } catch (error) {
    const readError = error instanceof Error ? error.message : String(error);
    return { path, format: format ?? null, groups: [], errors, readError, ...place };
  }
  return { path, format: format ?? null, groups: collector.finish(), errors, ...place };
}

/**
 * The groups of one unit: a whole file, or (a shard of one file) the groups whose key hashes to
 * the shard, every line read so that no group is cut in two.
 */
export function groupsUnit(
  { path, shard }: ShardedInput,
  { nearK }: GroupsUnitOptions,
): Promise<FileGroupsReport> {
  const keep = shard && ((key: string) => stableHash(key) % shard.count === shard.index);
  return groupsOfFile(path, nearK, keep);
}

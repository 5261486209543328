import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createStepStatsBuilder,
  type StepDrift,
  type StepStats,
  stepGroupsOf,
} from "../../src/core/files/stepStats";
import { forestCollector } from "../../src/core/forest/forestOf";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import { trajectoryIdsAbsentReason } from "../../src/core/formats/idsAbsent";
import { driftFile, hasDrift } from "../drift/driftFile";
import type { DriftTokenizers } from "../drift/driftTokenizers";
import { readRecords } from "./readLines";

/**
 * Group forensics are built for step files up to this size: a file's members are held (ids and
 * mask) until its groups are complete, as `rollout-lens groups` holds them.
 */
export const STEP_GROUPS_MAX_BYTES = 512 * 1024 * 1024;

/**
 * A step file's statistics for the run charts: one streaming pass for reward, length, mismatch
 * (core/files/stepStats.ts) and the groups' forensics (core/forest, as `groups` builds them),
 * then the `drift` command's own check (round trip, the file's tokenizer chosen as the CLI
 * chooses) for the drift rate, unless the file has no ids.
 */
export async function computeStepStats(
  path: string,
  tokenizers: DriftTokenizers,
  mapping?: ColumnMapping,
): Promise<StepStats> {
  const stats = createStepStatsBuilder();
  const size = (await stat(path)).size;
  const forests = size <= STEP_GROUPS_MAX_BYTES ? forestCollector() : undefined;
  let withIds = 0;
  let idsAbsent: string | undefined;
  // Each record read on its own (no format fixed by the first), as the run charts always have.
  for await (const { result } of readRecords(path, { mapping, fixFormat: false })) {
    if (result.kind === "blank") continue;
    if (result.kind === "error") {
      stats.addError();
      continue;
    }
    forests?.addLine(result.trajectories, result.format);
    for (const t of result.trajectories) {
      stats.add(t);
      const reason = trajectoryIdsAbsentReason(t);
      if (reason === undefined) withIds += 1;
      else idsAbsent ??= reason;
    }
  }
  let drift: StepDrift;
  if (withIds === 0) {
    drift = { reason: idsAbsent ?? "no trajectory was read" };
  } else {
    const found = await driftFile(path, { tokenizers, modes: ["roundtrip"], mapping });
    // Nothing checked: the step's chart says why (the first unchecked trajectory's reason).
    const unchecked = found.trajectories.length === 0 ? found.unchecked[0]?.reason : undefined;
    drift =
      found.readError !== undefined
        ? { reason: found.readError }
        : unchecked !== undefined
          ? { reason: unchecked }
          : {
              checked: found.trajectories.length,
              drifted: found.trajectories.filter(hasDrift).length,
            };
  }
  const groups = forests
    ? stepGroupsOf(forests.finish())
    : {
        reason: `not built: the file is over ${STEP_GROUPS_MAX_BYTES / 2 ** 20} MiB (run \`rollout-lens groups\` on it)`,
      };
  return stats.finish(drift, groups);
}

/** Bump when StepStats or its computation changes: older cache entries are then recomputed. */
const CACHE_VERSION = 5;

export interface StepStatsCache {
  /**
   * The file's statistics (its records read through `map`, a `--map` spec, when given): cached
   * while its path, size, mtime and map are unchanged.
   */
  get(path: string, map?: string): Promise<StepStats>;
}

interface CacheEntry {
  readonly key: string;
  readonly stats: StepStats;
}

/**
 * Caches step statistics per file, keyed by path + size + mtime, in memory and as one small JSON
 * file per step file under `dir` (so reopening a run, even after a restart, reads no rollout).
 * Concurrent requests for one file share one computation.
 */
export function createStepStatsCache(options: {
  readonly dir: string;
  readonly compute: (path: string, map?: string) => Promise<StepStats>;
}): StepStatsCache {
  const memory = new Map<string, Promise<StepStats>>();
  const fileOf = (path: string) =>
    join(options.dir, `${createHash("sha256").update(path).digest("hex").slice(0, 32)}.json`);
  const load = async (path: string, key: string, map?: string): Promise<StepStats> => {
    const cached = fileOf(path);
    try {
      const entry = JSON.parse(await readFile(cached, "utf8")) as CacheEntry;
      if (entry.key === key) return entry.stats;
    } catch {
      // Absent or unreadable: computed below.
    }
    const stats = await options.compute(path, map);
    await mkdir(options.dir, { recursive: true });
    const temp = `${cached}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ key, stats } satisfies CacheEntry));
    await rename(temp, cached);
    return stats;
  };
  return {
    async get(path, map) {
      const s = await stat(path);
      const key = JSON.stringify([CACHE_VERSION, path, s.size, s.mtimeMs, ...(map ? [map] : [])]);
      let stats = memory.get(key);
      if (!stats) {
        stats = load(path, key, map);
        memory.set(key, stats);
        // A failed computation is not cached: the next request tries again.
        stats.catch(() => memory.delete(key));
      }
      return stats;
    },
  };
}

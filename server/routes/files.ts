import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Hono } from "hono";
import { z } from "zod";
import { MAX_RANGE_BYTES } from "../../src/core/files/filesWire";
import { SERVER_DEFAULTS } from "../configDefaults";
import {
  createFileRegistry,
  describeFile,
  type FileRegistry,
  servedPath,
} from "../files/fileRegistry";
import { openRange, RangeGate } from "../files/rangeReads";
import { createStepStatsCache, type StepStatsCache } from "../files/stepStats";
import { createStepStatsWorker } from "../files/stepStatsWorker";

export interface FilesRoutesOptions {
  /** Files named on the command line. */
  readonly files: readonly string[];
  /** The data directory; its `episodes.jsonl` is listed too. */
  readonly dataDir: string;
  /** `--map SPEC`: the column mapping the CLI files are read through (listed with each). */
  readonly map?: string;
  /** Step statistics (run charts); default: computed on a worker thread, cached in `<data>/cache`. */
  readonly stepStats?: StepStatsCache;
  /** The registry to serve (the app shares one with forks); default: one over `files`. */
  readonly registry?: FileRegistry;
  /** How long a step-stats request waits for a computation before answering 202 (ms). */
  readonly stepStatsWaitMs?: number;
  /** Byte-range reads in flight at once (`--max-range-reads`); more are answered 429. */
  readonly maxRangeReads?: number;
}

const rangeQuery = z
  .object({
    start: z.coerce.number().int().nonnegative(),
    end: z.coerce.number().int().nonnegative(),
  })
  .refine((q) => q.end >= q.start, { message: "end must not be before start" });

const MIB = 1024 * 1024;

/**
 * `/api/files`: the files the server was told about, and byte ranges of exactly those files, so
 * the browser's worker indexes them with the same code as a local file. Mount with
 * `app.route("/api/files", filesRoutes({ files: config.files, dataDir: config.data }))`.
 */
export function filesRoutes(options: FilesRoutesOptions) {
  const registry =
    options.registry ?? createFileRegistry(options.files, options.dataDir, { map: options.map });
  const find = (id: string) => registry.find(id);
  const stepStatsWaitMs = options.stepStatsWaitMs ?? 5000;
  const stepStats =
    options.stepStats ??
    createStepStatsCache({
      dir: join(options.dataDir, "cache", "step-stats"),
      compute: createStepStatsWorker().compute,
    });
  const rangeGate = new RangeGate(options.maxRangeReads ?? SERVER_DEFAULTS.maxRangeReads);
  return new Hono()
    .get("/", async (c) => c.json({ files: await Promise.all(registry.list().map(describeFile)) }))
    .get("/:fileId", async (c) => {
      const file = find(c.req.param("fileId"));
      if (!file) return c.json({ error: `no file with id "${c.req.param("fileId")}"` }, 404);
      return c.json(await describeFile(file));
    })
    .get("/:fileId/step-stats", async (c) => {
      const file = find(c.req.param("fileId"));
      if (!file) return c.json({ error: `no file with id "${c.req.param("fileId")}"` }, 404);
      try {
        // A big file takes long: after a while the reply is 202 "pending" (the computation goes
        // on) and the browser asks again, so no request outlives the server's timeouts.
        const stats = await Promise.race([
          servedPath(file).then((path) => stepStats.get(path, file.map)),
          sleep(stepStatsWaitMs, undefined, { ref: false }),
        ]);
        // undefined fields are left out of the JSON: the wire schema reads them as absent.
        return stats === undefined ? c.json({ pending: true }, 202) : c.json(stats);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return c.json({ error: `${file.name}: ${reason}` }, 404);
      }
    })
    .get("/:fileId/range", async (c) => {
      const file = find(c.req.param("fileId"));
      if (!file) return c.json({ error: `no file with id "${c.req.param("fileId")}"` }, 404);
      const query = rangeQuery.safeParse(c.req.query());
      if (!query.success) {
        const issue = query.error.issues[0];
        const field = issue?.path.join(".") || "range";
        return c.json({ error: `${field}: ${issue?.message ?? "invalid"}` }, 400);
      }
      const { start, end } = query.data;
      if (end - start > MAX_RANGE_BYTES) {
        const cap = `${MAX_RANGE_BYTES / MIB} MiB (${MAX_RANGE_BYTES} bytes)`;
        const error = `a range may span at most ${cap}; this one asks for ${end - start} bytes: ask for it in parts`;
        return c.json({ error }, 413);
      }
      const slot = rangeGate.enter();
      if (!slot.ok) {
        c.header("retry-after", String(slot.retryAfterSeconds));
        return c.json({ error: slot.error }, slot.status);
      }
      try {
        const body = await openRange(file, start, end, slot.release);
        return c.body(body.stream, 200, {
          "content-type": "application/octet-stream",
          "content-length": String(body.length),
          "cache-control": "no-store",
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return c.json({ error: `${file.name}: ${reason}` }, 404);
      }
    });
}

import { z } from "zod";

/** A file the server was told about (CLI argument or `<data>/episodes.jsonl`); sizes in bytes. */
export const serverFileSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Where it came from: named on the command line, or the live-episode store. */
  origin: z.enum(["cli", "data"]),
  /** Current size in bytes; undefined while the file does not exist yet. */
  size: z.number().int().nonnegative().optional(),
  /**
   * Set on the step files of a run directory (`rollout-lens view DIR`): the run (`r1`, `r2`, ...,
   * named after the directory) and the training step; the list holds a run's files in step order.
   */
  run: z
    .object({
      id: z.string(),
      name: z.string(),
      step: z.number().int().nonnegative(),
      /** Training or evaluation rollouts, when the path says (core/files/runSteps splitOfPath). */
      split: z.enum(["train", "eval"]).optional(),
      /** prime-rl's `all` / `effective` subset of a step's episodes. */
      subset: z.enum(["all", "effective"]).optional(),
    })
    .optional(),
  /**
   * `rollout-lens view --map SPEC`: the column mapping (columnMapping.ts parseMapSpec syntax) its
   * records are read through (records no known producer wrote).
   */
  map: z.string().optional(),
  /**
   * A slime/miles rollout dump's train dumps (`train_data/{id}.pt`, `{id}_{rank}.pt` beside its
   * `rollout_data/`), served by the same endpoints under their own ids: the file worker joins
   * them to the rollout's samples as the CLI does (core/files/torchRecords rolloutDumpSource).
   */
  trainDumps: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  /**
   * A miles dashboard column file's rollout dump (`rollout_data/{stem}.pt` beside its
   * `dashboard_columns/`): its rows get the dump's reward, status and group
   * (core/files/dashboardColumns.ts).
   */
  rolloutDump: z.object({ id: z.string(), name: z.string() }).optional(),
});
export type ServerFile = z.infer<typeof serverFileSchema>;

/** `GET /api/files` reply. */
export const serverFileListSchema = z.object({ files: z.array(serverFileSchema) });
export type ServerFileList = z.infer<typeof serverFileListSchema>;

/** Largest byte range one `GET /api/files/:id/range` request may ask for (bytes). */
export const MAX_RANGE_BYTES = 16 * 1024 * 1024;

/** `GET /api/files/:id/step-stats` reply: core/files/stepStats.ts StepStats (absent = undefined). */
export const stepStatsSchema = z.object({
  trajectories: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  reward: z.number().optional(),
  rewarded: z.number().int().nonnegative(),
  length: z.number().optional(),
  withTokens: z.number().int().nonnegative(),
  driftRate: z.number().optional(),
  driftChecked: z.number().int().nonnegative(),
  driftNote: z.string().optional(),
  mismatch: z.number().optional(),
  mismatchTokens: z.number().int().nonnegative(),
  mismatchNote: z.string().optional(),
  groups: z
    .object({
      groups: z.number().int().nonnegative(),
      zeroVariance: z.number().int().nonnegative(),
      samples: z.number().int().nonnegative(),
      duplicates: z.number().int().nonnegative(),
    })
    .optional(),
  groupsNote: z.string().optional(),
});

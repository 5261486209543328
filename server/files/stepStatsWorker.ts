import { stat } from "node:fs/promises";
import type { StepStats } from "../../src/core/files/stepStats";
import { READER_MEMORY_LIMIT_MB, readBudgetMs } from "../workers/budgets";
import { createLazyWorkerPool, workerUrl } from "../workers/workerPool";

export interface StepStatsRequest {
  readonly path: string;
  /** `--map SPEC` the file is read through. */
  readonly map?: string;
}

export interface StepStatsWorker {
  compute(path: string, map?: string): Promise<StepStats>;
  close(): Promise<void>;
}

/** Step files computed at once, each on its own worker. */
const STEP_STATS_WORKERS = 2;

/**
 * Worker threads, started on the first request, that compute step statistics one file each, so a
 * file that is damaged (a reader stuck or growing: terminated at its budget or memory limit, the
 * worker replaced) fails alone while the others are computed. They stay up (holding their
 * tokenizers) and are unref'd, so an idle server can still exit.
 */
export function createStepStatsWorker(
  options: { readonly budgetMs?: (bytes: number) => number } = {},
): StepStatsWorker {
  const pool = createLazyWorkerPool<StepStatsRequest, StepStats>({
    name: "step statistics",
    url: workerUrl("files", "stepStats.worker"),
    size: STEP_STATS_WORKERS,
    resourceLimits: { maxOldGenerationSizeMb: READER_MEMORY_LIMIT_MB },
    unref: true,
  });
  return {
    async compute(path, map) {
      const { size } = await stat(path);
      const budgetMs = (options.budgetMs ?? readBudgetMs)(size);
      return pool.call({ path, ...(map === undefined ? {} : { map }) }, { label: path, budgetMs });
    },
    close: () => pool.close(),
  };
}

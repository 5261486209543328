/*
 * The time and memory a reader worker may use before it is terminated and replaced (docs/format.md
 * "Bounded reading"). Generous for real files: a budget only ends a reader that is stuck or
 * growing on damaged input, which the checks before decoding did not already refuse.
 */

/** Heap of one reader worker; past it the worker ends (ERR_WORKER_OUT_OF_MEMORY), not the process. */
export const READER_MEMORY_LIMIT_MB = 2048;

/** Time to read `bytes` bytes of a file: a minute, plus 2 s per MB. */
export function readBudgetMs(bytes: number): number {
  const override = Number(process.env.ROLLOUT_LENS_READ_BUDGET_MS);
  if (Number.isFinite(override) && override > 0) return override;
  return 60_000 + Math.ceil(bytes / 1_000_000) * 2_000;
}

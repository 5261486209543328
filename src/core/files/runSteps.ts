/*
 * A training run's step files in step order (`rollout-lens view DIR`, docs/format.md "Run
 * directories"). Pure: given the paths (the server walks the directory), the step of each file is
 * read from its name or its folders, and the files are sorted by step. Naming patterns:
 *   - `train_data_step12.jsonl` (NeMo-RL), `rollouts_step_12.parquet`, `step-12.jsonl`: `step` + N
 *     in the file name;
 *   - `12.jsonl` (verl's `rollout_data_dir/{step}.jsonl`): the name is the number;
 *   - `step_12/rollouts.jsonl`, `global_step_12/…`, `12/…`: a folder names the step;
 *   - `completions_12.parquet` (Tinker): a trailing `_N` / `-N` in the name, when no folder says.
 */

/** File names a run directory may hold rollouts in (JSON lines, JSON documents, Parquet). */
const RUN_FILE = /\.(jsonl|ndjson|json|parquet|pt)$/i;

/** True when `name` (a base name) is a readable rollout file that is not hidden. */
export function isRunFileName(name: string): boolean {
  return !name.startsWith(".") && RUN_FILE.test(name);
}

/** `step` then digits, not inside a longer word or number (`step12`, `step_12`, `global_step-3`). */
const STEP_WORD = /(?:^|[^a-z])step[_-]?(\d+)(?!\d)/i;
const ALL_DIGITS = /^(\d+)$/;
const TRAILING_NUMBER = /[_-](\d+)$/;
/** A shard counter (`train-00001-of-00004`), not a step. */
const SHARD_OF = /\d+-of-\d+$/;

function parts(path: string): { dirs: string[]; stem: string } {
  const segments = path.split(/[\\/]+/).filter((s) => s.length > 0);
  const name = segments.pop() ?? "";
  return { dirs: segments, stem: name.replace(RUN_FILE, "") };
}

function numberOf(match: RegExpExecArray | null): number | undefined {
  const n = match?.[1] === undefined ? undefined : Number(match[1]);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The training step a path names, or undefined. The file name wins over its folders (a
 * `step_3/…_step3.jsonl` says the same); a bare trailing number in the name counts only when no
 * folder names a step (`step_3/shard_1.jsonl` is step 3, shard 1).
 */
export function stepOfPath(path: string): number | undefined {
  const { dirs, stem } = parts(path);
  const inName = numberOf(STEP_WORD.exec(stem)) ?? numberOf(ALL_DIGITS.exec(stem));
  if (inName !== undefined) return inName;
  for (const dir of [...dirs].reverse()) {
    const inDir = numberOf(STEP_WORD.exec(dir)) ?? numberOf(ALL_DIGITS.exec(dir));
    if (inDir !== undefined) return inDir;
  }
  return SHARD_OF.test(stem) ? undefined : numberOf(TRAILING_NUMBER.exec(stem));
}

/** One step file of a run. Several files may share a step (shards); they keep path order. */
export interface RunStepFile {
  readonly path: string;
  readonly step: number;
}

export interface RunSteps {
  /** Files with a step, by step, then by path (numbers in names compared as numbers). */
  readonly steps: readonly RunStepFile[];
  /** Readable files whose path names no step (not part of the run's order), by path. */
  readonly withoutStep: readonly string[];
}

const byPath = new Intl.Collator("en", { numeric: true }).compare;

/** Orders a run's files by step; paths that are not rollout files are left out. */
export function orderRunSteps(paths: readonly string[]): RunSteps {
  const steps: RunStepFile[] = [];
  const withoutStep: string[] = [];
  for (const path of paths) {
    if (!isRunFileName(path.split(/[\\/]/).pop() ?? "")) continue;
    const step = stepOfPath(path);
    if (step === undefined) withoutStep.push(path);
    else steps.push({ path, step });
  }
  steps.sort((a, b) => a.step - b.step || byPath(a.path, b.path));
  withoutStep.sort(byPath);
  return { steps, withoutStep };
}

/*
 * A training run's step files in step order (`rollout-lens view DIR`, docs/format.md "Run
 * directories"). Pure: given the paths (the server walks the directory), the step of each file is
 * read from its name or its folders, and the files are sorted by step. Naming patterns:
 *   - `train_data_step12.jsonl` (NeMo-RL), `rollouts_step_12.parquet`, `step-12.jsonl`: `step` + N
 *     in the file name;
 *   - `12.jsonl` (verl's `rollout_data_dir/{step}.jsonl`): the name is the number;
 *   - `step_12/rollouts.jsonl`, `global_step_12/…`, `12/…`: a folder names the step;
 *   - `completions_12.parquet` (Tinker): a trailing `_N` / `-N` in the name, when no folder says;
 *   - `iteration_000012/…` (Tinker cookbook): an `iteration_N` folder;
 *   - `rollout/3/17.jsonl` (AReaL `rollout/{version}/{task_id}.jsonl`): the version folder, never
 *     the task id;
 *   - `trajectories/train/0003.yaml` (ART `trajectories/{split}/{step:04d}.yaml`): the name.
 * Each file is also told train or eval (`splitOfPath`) and, for prime-rl, which subset.
 */

/**
 * File names a run directory may hold rollouts in (JSON lines, JSON documents, Parquet,
 * torch.save, SkyRL pickles, ART's trajectories YAML).
 */
const RUN_FILE = /\.(jsonl|ndjson|json|parquet|pt|pkl|yaml)$/i;

/** True when `name` (a base name) is a readable rollout file that is not hidden. */
export function isRunFileName(name: string): boolean {
  return !name.startsWith(".") && RUN_FILE.test(name);
}

/** `step` then digits, not inside a longer word or number (`step12`, `step_12`, `global_step-3`). */
const STEP_WORD = /(?:^|[^a-z])(?:step|iteration)[_-]?(\d+)(?!\d)/i;
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
  const version = arealVersion(dirs);
  if (version !== undefined) return version;
  const inName = numberOf(STEP_WORD.exec(stem)) ?? numberOf(ALL_DIGITS.exec(stem));
  if (inName !== undefined) return inName;
  for (const dir of [...dirs].reverse()) {
    const inDir = numberOf(STEP_WORD.exec(dir)) ?? numberOf(ALL_DIGITS.exec(dir));
    if (inDir !== undefined) return inDir;
  }
  return SHARD_OF.test(stem) ? undefined : numberOf(TRAILING_NUMBER.exec(stem));
}

/** AReaL's `{rollout|eval-rollout}/{version}/…` names the policy version in the folder. */
function arealVersion(dirs: readonly string[]): number | undefined {
  const [parent, version] = dirs.slice(-2);
  if (parent !== "rollout" && parent !== "eval-rollout") return undefined;
  return numberOf(ALL_DIGITS.exec(version ?? ""));
}

/** Whether a step file holds training rollouts or evaluation ones. */
export type RunSplit = "train" | "eval";

/** Folder names that hold evaluation rollouts (prime-rl `eval/`, ART `val/`, AReaL `eval-rollout/`, SkyRL). */
const EVAL_DIR = /^(?:evals?|val|eval-rollout|dumped_evals|.*_evals?|eval_\d+)$/i;
const TRAIN_DIR = /^(?:train|rollout)$/i;
/** File names of evaluation dumps: NeMo-RL `val_data_step{N}`, miles `eval_{N}`, Tinker `eval_{label}_…`. */
const EVAL_NAME = /^(?:val_data|eval_|validation)/i;
const TRAIN_NAME = /^(?:train_data|train_)/i;

/**
 * Train or eval, from the path's folders (nearest first) and then its name; undefined when the
 * path says neither (a plain `12.jsonl` is charted as training).
 */
export function splitOfPath(path: string): RunSplit | undefined {
  const { dirs, stem } = parts(path);
  if (EVAL_NAME.test(stem)) return "eval";
  if (TRAIN_NAME.test(stem)) return "train";
  for (const dir of [...dirs].reverse()) {
    if (EVAL_DIR.test(dir)) return "eval";
    if (TRAIN_DIR.test(dir)) return "train";
  }
  return undefined;
}

/**
 * prime-rl's subset of a step's episodes (`rollouts/step_N/{train|eval}/{all|effective}/`):
 * `all` as each episode completed, `effective` the ones the batch kept (a subset of `all`).
 */
export function subsetOfPath(path: string): "all" | "effective" | undefined {
  const { dirs } = parts(path);
  const [kind, subset] = dirs.slice(-2);
  if (kind !== "train" && kind !== "eval") return undefined;
  return subset === "all" || subset === "effective" ? subset : undefined;
}

/** One step file of a run. Several files may share a step (shards); they keep path order. */
export interface RunStepFile {
  readonly path: string;
  readonly step: number;
  readonly split?: RunSplit;
  readonly subset?: "all" | "effective";
}

/** The step, split and subset a path names; undefined when it names no step. */
export function runPositionOf(path: string): Omit<RunStepFile, "path"> | undefined {
  const step = stepOfPath(path);
  if (step === undefined) return undefined;
  const split = splitOfPath(path);
  const subset = subsetOfPath(path);
  return { step, ...(split ? { split } : {}), ...(subset ? { subset } : {}) };
}

/** Where a step file sits in its run, in words: `step 3, eval, all`. */
export function runPositionLabel(file: Omit<RunStepFile, "path">): string {
  return [`step ${file.step}`, file.split, file.subset].filter((w) => w !== undefined).join(", ");
}

/**
 * The files a run's per-step charts count: training ones (eval files are listed, never charted
 * with training), and of prime-rl's two subsets of one step the `all` file alone (`effective`
 * repeats some of its episodes), `effective` only where a step has no `all`.
 */
export function chartedStepFiles<T extends Omit<RunStepFile, "path">>(files: readonly T[]): T[] {
  const train = files.filter((f) => f.split !== "eval");
  const hasAll = new Set(train.filter((f) => f.subset === "all").map((f) => f.step));
  return train.filter((f) => f.subset !== "effective" || !hasAll.has(f.step));
}

/**
 * Files a trainer writes next to its rollouts that hold no rollouts: prime-rl's and Tinker's
 * `metrics.jsonl`, Tinker's `checkpoints.jsonl`, `timing_spans.jsonl`, `{name}_logtree.json` and
 * capture records of other kinds than samples (`capture/train_op.jsonl`), SkyRL's
 * `aggregated_results.jsonl`.
 */
export function isRunSideFile(path: string): boolean {
  const name = path.split(/[\\/]/).pop() ?? "";
  if (/^(?:metrics|checkpoints|timing_spans|aggregated_results)\.jsonl$/.test(name)) return true;
  if (/_logtree\.json$/.test(name)) return true;
  return /(?:^|[\\/])capture[\\/][^\\/]+\.jsonl$/.test(path) && !isStepSpanningFile(path);
}

/**
 * A rollout file holding every step of a run, each record naming its own (Tinker's
 * `capture/sample.jsonl`: the capture scope's `iteration`): listed beside the run's step files.
 */
export function isStepSpanningFile(path: string): boolean {
  return /(?:^|[\\/])capture[\\/]sample\.jsonl$/.test(path);
}

export interface RunSteps {
  /** Files with a step, by step, then by path (numbers in names compared as numbers). */
  readonly steps: readonly RunStepFile[];
  /** Files holding every step, each record naming its own (isStepSpanningFile), by path. */
  readonly spanning: readonly string[];
  /** Readable files whose path names no step (not part of the run's order), by path. */
  readonly withoutStep: readonly string[];
}

const byPath = new Intl.Collator("en", { numeric: true }).compare;

/**
 * Orders a run's files by step; paths that are not rollout files are left out, and side files
 * (isRunSideFile) count as naming no step.
 */
export function orderRunSteps(paths: readonly string[]): RunSteps {
  const steps: RunStepFile[] = [];
  const spanning: string[] = [];
  const withoutStep: string[] = [];
  for (const path of paths) {
    if (!isRunFileName(path.split(/[\\/]/).pop() ?? "")) continue;
    const position = isRunSideFile(path) ? undefined : runPositionOf(path);
    if (isStepSpanningFile(path)) spanning.push(path);
    else if (position === undefined) withoutStep.push(path);
    else steps.push({ path, ...position });
  }
  steps.sort((a, b) => a.step - b.step || byPath(a.path, b.path));
  spanning.sort(byPath);
  withoutStep.sort(byPath);
  return { steps, spanning, withoutStep };
}

/**
 * The step a trajectory's record names (`metadata.step`: Tinker capture's iteration, verl's step,
 * TRL's completions table, which writes it as text).
 */
export function recordStepOf(metadata: Readonly<Record<string, unknown>>): number | undefined {
  const raw = metadata.step;
  const step = typeof raw === "string" && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  return typeof step === "number" && Number.isSafeInteger(step) && step >= 0 ? step : undefined;
}

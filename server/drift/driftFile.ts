import { checkCallPrefixes } from "../../src/core/drift/detectDrift";
import {
  chosenForFile,
  type DriftGate,
  type UncheckedMode,
} from "../../src/core/drift/driftInputs";
import {
  DRIFT_MAX_TOKENS,
  type DriftVerdict,
  reasonOfUnchecked,
  runDriftChecks,
  uncheckedFor,
  unfitForDrift,
} from "../../src/core/drift/driftRules";
import type { CallPrefixResult, DriftMode, DriftResult } from "../../src/core/drift/types";
import { createErrorLog } from "../../src/core/files/errorLog";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { FormatId, LineError } from "../../src/core/formats/types";
import { chooseTokenizerFor, type TokenizerChoice } from "../../src/core/tokenizer/chooseTokenizer";
import { createIdsFitCheck, type IdsMisfit } from "../../src/core/tokenizer/idsFit";
import { type RoundTripPath, roundTripPlanFor } from "../../src/core/tokenizer/roundTripPlan";
import type { Trajectory } from "../../src/core/trajectory/types";
import { type ByteRange, readRecords, rolloutFileHead } from "../files/readLines";
import { WorkerFailure } from "../workers/workerPool";
import type { DriftEngine, DriftTokenizers } from "./driftTokenizers";

/** The drift checks of one trajectory, with where it came from. */
export interface TrajectoryDrift {
  /** 1-based line number in the file. */
  readonly line: number;
  /** Row inside an atropos group line, 0 otherwise. */
  readonly row: number;
  readonly id: string;
  readonly results: readonly DriftResult[];
  readonly callPrefix?: CallPrefixResult;
  /** The checks asked for that could not run on it (no messages, no recorded text), and why. */
  readonly unchecked: readonly UncheckedMode[];
}

/**
 * A trajectory that was read but not (or not fully) checked, and why (never counted as "no
 * drift"): `modes` are the checks that did not run on it.
 */
export interface UncheckedTrajectory {
  readonly line: number;
  readonly row: number;
  readonly id: string;
  readonly reason: string;
  readonly modes: readonly DriftMode[];
}

/** One check's counts over a file: trajectories it ran on, could not run on, found drift in. */
export interface ModeCounts {
  readonly mode: DriftMode;
  checked: number;
  unchecked: number;
  drifted: number;
}

/** What `drift` found in one file. */
export interface FileDrift {
  readonly path: string;
  readonly format: FormatId | null;
  readonly validLines: number;
  /** The tokenizer the file was checked with and why; null when no trajectory was read. */
  readonly tokenizer: TokenizerChoice | null;
  /**
   * Trajectories checked, in file order — all of them, or (with `options.keep`) only those it
   * keeps; the counts below always cover every checked trajectory.
   */
  readonly trajectories: readonly TrajectoryDrift[];
  /** Trajectories every asked-for check ran on. */
  readonly checked: number;
  /** Checked trajectories with drift (`hasDrift`). */
  readonly drifted: number;
  /** Trainable tokens affected, over every check of every checked trajectory. */
  readonly trainableAffected: number;
  /**
   * Trajectories read but not checked by every asked-for check (ids not the tokenizer's, a failing
   * check, no input for a check), in file order.
   */
  readonly unchecked: readonly UncheckedTrajectory[];
  /** Each asked-for check's counts, in the order asked. */
  readonly modes: readonly ModeCounts[];
  /** The first bad lines (MAX_LISTED_ERRORS); `badLines` counts them all. */
  readonly errors: readonly LineError[];
  readonly badLines: number;
  /** Set when the file could not be read at all. */
  readonly readError?: string;
  /**
   * Which round trip the checks ran (the pool's workers plan the same way from the same files);
   * undefined when no tokenizer was loaded (no trajectory read).
   */
  readonly roundTrip?: RoundTripPath;
  /** Why the fast path does not apply, when `roundTrip` is "exact". */
  readonly roundTripReason?: string;
  /** Set when only a byte range of the file was checked (`--shard` on one file). */
  readonly shard?: FileShard;
  /**
   * "record" when the file is a table or document (Parquet, CSV, torch.save, JSON, YAML): its
   * `validLines`, `badLines` and every `line` count records, not lines of the file's text.
   */
  readonly unit?: "record";
}

/** The part of one file a shard checks: the lines starting in `[start, end)` of its `size` bytes. */
export interface FileShard extends ByteRange {
  readonly index: number;
  readonly count: number;
  readonly size: number;
}

export interface DriftFileOptions {
  /** Where the chosen tokenizer comes from (loaded on first use). */
  readonly tokenizers: DriftTokenizers;
  /** A tokenizer the user named (`--tokenizer`): it overrides the choice, never the fit check. */
  readonly picked?: string;
  readonly modes: readonly DriftMode[];
  readonly format?: FormatId;
  /** Read every line through this column mapping (`--map`; records of unknown shape). */
  readonly mapping?: ColumnMapping;
  /** Check only the lines starting in this byte range (numbered as in the whole file). */
  readonly shard?: FileShard;
  /**
   * Called with each checked trajectory as soon as it and every one before it are final, in file
   * order (streaming output: a multi-GB file's results need not be held).
   */
  readonly onChecked?: (t: TrajectoryDrift) => void;
  /** Which checked trajectories `FileDrift.trajectories` keeps (default: all). */
  readonly keep?: (t: TrajectoryDrift) => boolean;
  /** Trajectories longer than this many tokens are not checked (default DRIFT_MAX_TOKENS). */
  readonly maxTokens?: number;
}

/** A pool batch named by its file and lines, for a worker's failure. */
function batchLabel(path: string, sent: readonly Trajectory[]): string {
  const first = sent[0]?.source.line;
  const last = sent.at(-1)?.source.line;
  return `${path} ${first === last ? `line ${first}` : `lines ${first}–${last}`}`;
}

const PENDING = Symbol("pending");
const FAILED = Symbol("failed");

/** Trajectories sent to the pool per message: big enough to amortize the copy, small enough to share. */
const POOL_BATCH = 128;

/** True when any check of the trajectory found a difference (or the call prefixes break). */
export function hasDrift(t: TrajectoryDrift): boolean {
  return t.results.some((r) => r.firstDivergenceIndex !== undefined) || t.callPrefix?.ok === false;
}

function where(t: Trajectory): { line: number; row: number; id: string } {
  return { line: t.source.line ?? 0, row: t.source.row ?? 0, id: t.id };
}

function entry(
  t: Trajectory,
  results: readonly DriftResult[],
  unchecked: readonly UncheckedMode[],
): TrajectoryDrift {
  const callPrefix = checkCallPrefixes(t);
  return { ...where(t), results, unchecked, ...(callPrefix ? { callPrefix } : {}) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The file's tokenizer: chosen once, from its first trajectory, as the browser chooses. */
interface FileTokenizer {
  readonly choice: TokenizerChoice;
  readonly engine: DriftEngine;
  readonly misfit: (t: Trajectory) => IdsMisfit | undefined;
}

/** Each check's counts and the unchecked trajectories of one file, as they are found. */
function createTally(asked: readonly DriftMode[]) {
  const modes: ModeCounts[] = asked.map((mode) => ({ mode, checked: 0, unchecked: 0, drifted: 0 }));
  const countOf = (mode: DriftMode) => modes.find((m) => m.mode === mode);
  const unchecked: UncheckedTrajectory[] = [];
  /** `t` was not checked by the checks `gaps` name (all asked-for checks: not at all). */
  const notChecked = (t: Trajectory, gaps: readonly UncheckedMode[]) => {
    unchecked.push({
      ...where(t),
      reason: reasonOfUnchecked(gaps),
      modes: gaps.map((g) => g.mode),
    });
    for (const g of gaps) {
      const c = countOf(g.mode);
      if (c) c.unchecked += 1;
    }
  };
  return {
    modes,
    unchecked,
    notChecked,
    allModes: (t: Trajectory, reason: string) =>
      notChecked(
        t,
        asked.map((mode) => ({ mode, reason })),
      ),
    /** Counts the results of one checked trajectory under their checks. */
    results(results: readonly DriftResult[]) {
      for (const r of results) {
        const c = countOf(r.mode);
        if (!c) continue;
        c.checked += 1;
        if (r.firstDivergenceIndex !== undefined) c.drifted += 1;
      }
    },
  };
}

/** The file's tokenizer chosen for its first trajectory `t` (or picked), loaded. */
async function fileTokenizerFor(
  t: Trajectory | undefined,
  options: DriftFileOptions,
): Promise<FileTokenizer> {
  const { names, fallback } = options.tokenizers;
  const choice = chooseTokenizerFor(t, { picked: options.picked, names, fallback });
  const engine = await options.tokenizers.load(choice.name);
  return { choice, engine, misfit: createIdsFitCheck(engine.tokenizer) };
}

/** The core's gate for `t` (driftInputs.ts): a picked tokenizer overrides what the record names. */
function gateOf(file: FileTokenizer, options: DriftFileOptions): DriftGate {
  const { names, fallback } = options.tokenizers;
  const chosen =
    options.picked === undefined ? chosenForFile(file.choice, names, fallback) : undefined;
  return chosen ? { misfit: file.misfit, chosen } : { misfit: file.misfit };
}

/** The round trip of the file's tokenizer, as FileDrift reports it. */
function roundTripOf(
  file: FileTokenizer | undefined,
): Pick<FileDrift, "roundTrip" | "roundTripReason"> {
  const plan = file && roundTripPlanFor(file.engine.tokenizer);
  if (plan === undefined) return {};
  return plan.path === "fast"
    ? { roundTrip: "fast" }
    : { roundTrip: "exact", roundTripReason: plan.reason };
}

/**
 * Streams `path` line by line (bad lines become errors, as in `validate`) and runs the drift checks
 * on every trajectory. With no forced format the first line that loads fixes the file's format;
 * the first trajectory fixes its tokenizer (`chooseTokenizer`, unless one is picked). Trajectories
 * whose ids cannot be that tokenizer's are reported unchecked, never as "no drift". With
 * `options.shard`, only the lines starting in its byte range are checked, with the format and
 * tokenizer the whole file's first lines fix, so N shards report what one run over the file does.
 */
export async function driftFile(path: string, options: DriftFileOptions): Promise<FileDrift> {
  const run = new FileDriftRun(path, options);
  try {
    if (options.picked !== undefined) run.file = await fileTokenizerFor(undefined, options);
    if (options.shard !== undefined && options.shard.start > 0) {
      // A later byte range is judged as the whole file is: with the format of the file's first
      // valid line and the tokenizer of its first trajectory (usually line 1: a short read).
      const head = await rolloutFileHead(path, run.format, options.mapping);
      run.format ??= head.format;
      if (head.trajectory !== undefined)
        run.file ??= await fileTokenizerFor(head.trajectory, options);
    }
    const reading = { format: run.format, mapping: options.mapping, range: options.shard };
    for await (const { result, isRecord } of readRecords(path, reading)) {
      run.throwIfFailed();
      if (isRecord) run.unit = "record";
      if (result.kind === "blank") continue;
      if (result.kind === "error") {
        run.errors.add(result.error);
        continue;
      }
      run.validLines += 1;
      run.format ??= result.format;
      for (const t of result.trajectories) await run.check(t);
    }
    await run.drain();
  } catch (error) {
    await run.abandon();
    return run.finish(messageOf(error));
  }
  return run.finish();
}

type Slot = TrajectoryDrift | typeof PENDING | typeof FAILED;

/** One file's drift checks under way: the trajectories in flight and the file's counts so far. */
class FileDriftRun {
  format: FormatId | undefined;
  validLines = 0;
  unit: "record" | undefined;
  file: FileTokenizer | undefined;
  readonly errors = createErrorLog<LineError>();
  /**
   * Checked trajectories in file order, from slot `head` on: a slot is PENDING while its pool
   * batch runs, and FAILED when the batch fails (those rows are then unchecked). Final slots at
   * the front are passed on (`settle`) and dropped, so memory holds only what is in flight.
   */
  private slots: Slot[] = [];
  private head = 0;
  /** Slot index = absolute index - offset (after the front is dropped). */
  private offset = 0;
  private readonly kept: TrajectoryDrift[] = [];
  private checked = 0;
  private drifted = 0;
  private trainableAffected = 0;
  private readonly tally: ReturnType<typeof createTally>;
  private readonly pending: Promise<void>[] = [];
  /** A pool worker died: the file cannot be finished. */
  private failure: WorkerFailure | undefined;
  private batch: { t: Trajectory; gaps: UncheckedMode[] }[] = [];
  private readonly maxTokens: number;

  constructor(
    private readonly path: string,
    private readonly options: DriftFileOptions,
  ) {
    this.format = options.format;
    this.tally = createTally(options.modes);
    this.maxTokens = options.maxTokens ?? DRIFT_MAX_TOKENS;
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** One trajectory checked, in this thread or queued for the pool; or counted unchecked. */
  async check(t: Trajectory): Promise<void> {
    const { options, tally } = this;
    // Text only, or too long: no reason to load (or name) a tokenizer for it.
    const unfit = unfitForDrift(t, this.maxTokens);
    if (unfit !== undefined) {
      tally.allModes(t, unfit);
      return;
    }
    this.file ??= await fileTokenizerFor(t, options);
    const file = this.file;
    // The core's rules (core/drift/driftRules.ts), as the browser's file scan runs them.
    const gate = gateOf(file, options);
    const gaps = uncheckedFor(t, { modes: options.modes, gate, maxTokens: this.maxTokens });
    if (gaps.length >= options.modes.length) {
      tally.notChecked(t, gaps);
      return;
    }
    if (file.engine.pool) {
      this.batch.push({ t, gaps });
      if (this.batch.length >= POOL_BATCH) this.flush();
      return;
    }
    // The plan is built once per tokenizer (cached), so this is a lookup.
    const { accelerator } = roundTripPlanFor(file.engine.tokenizer);
    const verdict = runDriftChecks(t, file.engine.tokenizer, options.modes, accelerator);
    if (verdict.unchecked.length > 0) {
      // This trajectory cannot be checked; the rest of the file still is.
      tally.notChecked(t, verdict.unchecked);
      return;
    }
    this.slots.push(entry(t, verdict.results, gaps));
    if (gaps.length > 0) tally.notChecked(t, gaps);
    this.settle();
  }

  /** The last batch sent and every batch waited for; throws when a pool worker died. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.pending);
    this.throwIfFailed();
  }

  /** After a failure: the batches in flight waited for, whatever they give. */
  async abandon(): Promise<void> {
    await Promise.allSettled(this.pending);
  }

  /** The queued trajectories sent to the pool as one batch, their slots reserved in file order. */
  private flush(): void {
    const pool = this.file?.engine.pool;
    if (!pool || this.batch.length === 0) return;
    const sent = this.batch;
    this.batch = [];
    const at = sent.map(() => this.slots.push(PENDING) - 1 + this.offset);
    const ts = sent.map((x) => x.t);
    const done = (verdicts: readonly DriftVerdict[]) => {
      at.forEach((slot, k) => {
        const x = sent[k];
        if (x === undefined) return;
        const verdict = verdicts[k] ?? { results: [], unchecked: [] };
        if (verdict.unchecked.length > 0) {
          // The check failed on this trajectory (core/drift/driftRules.ts): unchecked, not clean.
          this.slots[slot - this.offset] = FAILED;
          this.tally.notChecked(x.t, verdict.unchecked);
          return;
        }
        this.slots[slot - this.offset] = entry(x.t, verdict.results, x.gaps);
        if (x.gaps.length > 0) this.tally.notChecked(x.t, x.gaps);
      });
      this.settle();
    };
    const failed = (error: unknown) => {
      if (error instanceof WorkerFailure) this.failure ??= error;
      for (const [k, t] of ts.entries()) {
        this.tally.allModes(t, `cannot check drift: ${messageOf(error)}`);
        this.slots[(at[k] ?? 0) - this.offset] = FAILED;
      }
      this.settle();
    };
    const label = batchLabel(this.path, ts);
    this.pending.push(pool.check(ts, this.options.modes, label).then(done, failed));
  }

  /** The final slots at the front counted and passed on, in file order; the front dropped. */
  private settle(): void {
    const { slots, options } = this;
    let k = this.head;
    for (; k < slots.length; k++) {
      const slot = slots[k];
      if (slot === PENDING) break;
      if (slot === FAILED || slot === undefined) continue;
      if (slot.unchecked.length === 0) this.checked += 1;
      if (hasDrift(slot)) this.drifted += 1;
      this.tally.results(slot.results);
      for (const r of slot.results) this.trainableAffected += r.trainableTokensAffected;
      options.onChecked?.(slot);
      if (options.keep === undefined || options.keep(slot)) this.kept.push(slot);
    }
    this.head = k;
    if (this.head > 4096 && this.head * 2 > slots.length) {
      slots.splice(0, this.head);
      this.offset += this.head;
      this.head = 0;
    }
  }

  /** The file's report (with `readError` when it could not be read to the end). */
  finish(readError?: string): FileDrift {
    this.settle();
    const { path, format, file, errors, options } = this;
    const { unchecked, modes } = this.tally;
    unchecked.sort((a, b) => a.line - b.line || a.row - b.row);
    const { validLines, checked, drifted, trainableAffected } = this;
    const counts = { validLines, checked, drifted, trainableAffected, unchecked, modes };
    return {
      ...{ path, format: format ?? null, tokenizer: file?.choice ?? null, ...roundTripOf(file) },
      ...{ trajectories: this.kept, ...counts, errors: errors.listed, badLines: errors.count },
      ...(readError === undefined ? {} : { readError }),
      ...(options.shard === undefined ? {} : { shard: options.shard }),
      ...(this.unit === undefined ? {} : { unit: this.unit }),
    };
  }
}

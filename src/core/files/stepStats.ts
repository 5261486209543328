import type { Trajectory } from "../trajectory/types";

/*
 * One step file of a run, summed up for the run's per-step charts (reward, length, drift rate,
 * logprob mismatch). Built record by record while the file streams, so no file is held whole.
 */

/** The lane that holds the trainer's logprobs of the same tokens (NeMo-RL `prev_logprobs`). */
const TRAINER_LANE = "trainer";

export interface StepStats {
  /** Trajectories read. */
  readonly trajectories: number;
  /** Lines that could not be read (they are counted, never charted as zeros). */
  readonly errors: number;
  /** Mean scalar reward; undefined when no trajectory carries one. */
  readonly reward: number | undefined;
  /** Trajectories with a scalar reward (the mean's weight). */
  readonly rewarded: number;
  /** Mean tokens per trajectory; undefined when the file holds no token ids (text only). */
  readonly length: number | undefined;
  /** Trajectories with token ids (the mean length's weight). */
  readonly withTokens: number;
  /** Share of drift-checked trajectories with retokenization drift; undefined when none was checked. */
  readonly driftRate: number | undefined;
  readonly driftChecked: number;
  /** Why there is no drift rate, when there is none. */
  readonly driftNote?: string;
  /**
   * Mean |behaviour logprob - trainer logprob| (nats) over trainable tokens that carry both
   * series; undefined when the file records only one series.
   */
  readonly mismatch: number | undefined;
  readonly mismatchTokens: number;
  /** Why there is no mismatch, when there is none. */
  readonly mismatchNote?: string;
  /**
   * The step's groups (GRPO groups, trees, siblings: core/forest) as `rollout-lens groups` finds
   * them; undefined when they were not built (groupsNote says why).
   */
  readonly groups?: StepGroups;
  readonly groupsNote?: string;
}

/** Group forensics of a step: how many groups carry no gradient and how many samples repeat. */
export interface StepGroups {
  /** Groups of two or more members. */
  readonly groups: number;
  readonly zeroVariance: number;
  /** Members of those groups. */
  readonly samples: number;
  /** Members token-identical to an earlier member of their group (a set of k counts k − 1). */
  readonly duplicates: number;
}

/** The step's group tallies from its forests (what `groups` reports), groups of one left out. */
export function stepGroupsOf(
  forests: readonly {
    readonly size: number;
    readonly zeroVariance: boolean;
    readonly duplicateSets: readonly (readonly number[])[];
  }[],
): StepGroups {
  let groups = 0;
  let zeroVariance = 0;
  let samples = 0;
  let duplicates = 0;
  for (const f of forests) {
    if (f.size < 2) continue;
    groups += 1;
    samples += f.size;
    if (f.zeroVariance) zeroVariance += 1;
    for (const set of f.duplicateSets) duplicates += set.length - 1;
  }
  return { groups, zeroVariance, samples, duplicates };
}

function sumGroups(parts: readonly StepStats[]): StepGroups | undefined {
  const known = parts.flatMap((s) => (s.groups ? [s.groups] : []));
  if (known.length < parts.length) return undefined;
  const sum = (f: (g: StepGroups) => number) => known.reduce((n, g) => n + f(g), 0);
  return {
    groups: sum((g) => g.groups),
    zeroVariance: sum((g) => g.zeroVariance),
    samples: sum((g) => g.samples),
    duplicates: sum((g) => g.duplicates),
  };
}

/** What the drift check of a file found: counts, or why it did not run. */
export type StepDrift =
  | { readonly checked: number; readonly drifted: number }
  | { readonly reason: string };

export const MISMATCH_NOT_RECORDED =
  "not recorded: the file carries one logprob series (no trainer logprobs, e.g. NeMo-RL prev_logprobs)";

/** Accumulates a step file's statistics one trajectory (or bad line) at a time. */
export function createStepStatsBuilder() {
  let trajectories = 0;
  let errors = 0;
  let rewardSum = 0;
  let rewarded = 0;
  let tokenSum = 0;
  let withTokens = 0;
  let mismatchSum = 0;
  let mismatchTokens = 0;
  return {
    add(t: Trajectory): void {
      trajectories += 1;
      if (typeof t.reward === "number" && Number.isFinite(t.reward)) {
        rewardSum += t.reward;
        rewarded += 1;
      }
      let tokens = 0;
      for (const s of t.segments) tokens += s.tokenIds.length;
      if (tokens > 0) {
        tokenSum += tokens;
        withTokens += 1;
      }
      const trainer = t.logprobLanes?.[TRAINER_LANE];
      if (!trainer) return;
      let k = 0;
      for (const s of t.segments) {
        for (let i = 0; i < s.tokenIds.length; i++, k++) {
          const a = s.logprobs[i];
          const b = trainer[k];
          if (s.lossMask[i] !== 1 || typeof a !== "number" || typeof b !== "number") continue;
          mismatchSum += Math.abs(a - b);
          mismatchTokens += 1;
        }
      }
    },
    addError(): void {
      errors += 1;
    },
    finish(drift: StepDrift, groups?: StepGroups | { readonly reason: string }): StepStats {
      const checked = "checked" in drift ? drift.checked : 0;
      const driftRate = "checked" in drift && checked > 0 ? drift.drifted / checked : undefined;
      const driftNote =
        "reason" in drift
          ? drift.reason
          : checked === 0
            ? "no trajectory could be checked for drift"
            : undefined;
      return {
        trajectories,
        errors,
        reward: rewarded > 0 ? rewardSum / rewarded : undefined,
        rewarded,
        length: withTokens > 0 ? tokenSum / withTokens : undefined,
        withTokens,
        driftRate,
        driftChecked: checked,
        ...(driftNote === undefined ? {} : { driftNote }),
        mismatch: mismatchTokens > 0 ? mismatchSum / mismatchTokens : undefined,
        mismatchTokens,
        ...(mismatchTokens > 0 ? {} : { mismatchNote: MISMATCH_NOT_RECORDED }),
        ...(groups === undefined
          ? {}
          : "reason" in groups
            ? { groupsNote: groups.reason }
            : { groups }),
      };
    },
  };
}

/** One point of a run chart: a step, its (merged) statistics, and its first file. */
export interface RunStepPoint {
  readonly step: number;
  readonly fileId: string;
  readonly stats: StepStats;
}

function weighted(
  parts: readonly StepStats[],
  value: (s: StepStats) => number | undefined,
  weight: (s: StepStats) => number,
): number | undefined {
  let sum = 0;
  let total = 0;
  for (const s of parts) {
    const v = value(s);
    if (v === undefined || weight(s) === 0) continue;
    sum += v * weight(s);
    total += weight(s);
  }
  return total > 0 ? sum / total : undefined;
}

/** Statistics of several files of one step (shards) as one: means weighted by what they count. */
export function mergeStepStats(parts: readonly StepStats[]): StepStats | undefined {
  const [first] = parts;
  if (parts.length <= 1) return first;
  const sum = (f: (s: StepStats) => number) => parts.reduce((n, s) => n + f(s), 0);
  const driftChecked = sum((s) => s.driftChecked);
  const mismatchTokens = sum((s) => s.mismatchTokens);
  const driftNote = driftChecked > 0 ? undefined : parts.find((s) => s.driftNote)?.driftNote;
  const mismatchNote =
    mismatchTokens > 0 ? undefined : parts.find((s) => s.mismatchNote)?.mismatchNote;
  const groups = sumGroups(parts);
  const groupsNote = groups ? undefined : parts.find((s) => s.groupsNote)?.groupsNote;
  return {
    trajectories: sum((s) => s.trajectories),
    errors: sum((s) => s.errors),
    reward: weighted(
      parts,
      (s) => s.reward,
      (s) => s.rewarded,
    ),
    rewarded: sum((s) => s.rewarded),
    length: weighted(
      parts,
      (s) => s.length,
      (s) => s.withTokens,
    ),
    withTokens: sum((s) => s.withTokens),
    driftRate: weighted(
      parts,
      (s) => s.driftRate,
      (s) => s.driftChecked,
    ),
    driftChecked,
    ...(driftNote === undefined ? {} : { driftNote }),
    mismatch: weighted(
      parts,
      (s) => s.mismatch,
      (s) => s.mismatchTokens,
    ),
    mismatchTokens,
    ...(mismatchNote === undefined ? {} : { mismatchNote }),
    ...(groups ? { groups } : {}),
    ...(groupsNote === undefined ? {} : { groupsNote }),
  };
}

/**
 * A run's chart points, one per step, in step order: the files of a step (shards) merged, the
 * step's first file the one a click opens. Steps whose statistics are not all in yet are left out.
 */
export function runStepPoints(
  files: readonly { readonly step: number; readonly fileId: string; readonly stats?: StepStats }[],
): RunStepPoint[] {
  const bySteps = new Map<number, { fileId: string; parts: StepStats[]; missing: boolean }>();
  for (const f of files) {
    const entry = bySteps.get(f.step) ?? { fileId: f.fileId, parts: [], missing: false };
    if (f.stats) entry.parts.push(f.stats);
    else entry.missing = true;
    bySteps.set(f.step, entry);
  }
  const points: RunStepPoint[] = [];
  for (const [step, entry] of bySteps) {
    const stats = entry.missing ? undefined : mergeStepStats(entry.parts);
    if (stats) points.push({ step, fileId: entry.fileId, stats });
  }
  return points.sort((a, b) => a.step - b.step);
}

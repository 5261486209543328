/**
 * The drift rules of one trajectory, one implementation for every scan: the CLI
 * (`rollout-lens drift`, in process and on its worker threads) and the browser's file scan run
 * these, so a trajectory gets the same verdict wherever it is checked (docs/drift.md). A check
 * that cannot run is reported unchecked with its reason, never as "no drift": no ids, too many
 * ids, ids that cannot be the tokenizer's, a record naming another tokenizer than the file's, no
 * input for the check, or a check that failed.
 */
import type { Tokenizer } from "../tokenizer/types";
import type { Trajectory } from "../trajectory/types";
import { detectDrift, type RoundTripAccelerator } from "./detectDrift";
import {
  type DriftGate,
  modeInputMissing,
  trajectoryUncheckedReason,
  type UncheckedMode,
} from "./driftInputs";
import type { DriftMode, DriftResult } from "./types";

/**
 * The longest trajectory drift checks, in tokens: a round trip costs time and memory in
 * proportion, and one 10M-token line must not hold a run for minutes. Longer ones are counted
 * unchecked, with their length and this cap (docs/drift.md).
 */
export const DRIFT_MAX_TOKENS = 2_000_000;

/** Why `t` is not checked whatever the tokenizer: it has no ids, or too many. */
export function unfitForDrift(t: Trajectory, maxTokens = DRIFT_MAX_TOKENS): string | undefined {
  const absent = trajectoryUncheckedReason(t, {});
  if (absent !== undefined) return absent;
  let tokens = 0;
  for (const s of t.segments) tokens += s.tokenIds.length;
  return tokens > maxTokens ? `too long for drift (${tokens} tokens, cap ${maxTokens})` : undefined;
}

/** What the rules of a scan are: the checks asked for, the file's tokenizer gate, the length cap. */
export interface DriftRules {
  readonly modes: readonly DriftMode[];
  /** The file's tokenizer: its ids check, and its choice when it was not picked by the user. */
  readonly gate: DriftGate;
  /** Trajectories longer than this many tokens are not checked (default DRIFT_MAX_TOKENS). */
  readonly maxTokens?: number;
}

/**
 * The checks of `rules.modes` that cannot run on `t`, each with why: every one of them when the
 * whole trajectory cannot be checked (no ids, too long, ids or record not the file's tokenizer's),
 * else those whose input the record lacks (no messages, no recorded text).
 */
export function uncheckedFor(t: Trajectory, rules: DriftRules): UncheckedMode[] {
  const whole = unfitForDrift(t, rules.maxTokens) ?? trajectoryUncheckedReason(t, rules.gate);
  if (whole !== undefined) return rules.modes.map((mode) => ({ mode, reason: whole }));
  return rules.modes.flatMap((mode) => {
    const reason = modeInputMissing(t, mode);
    return reason === undefined ? [] : [{ mode, reason }];
  });
}

/** One trajectory's verdict: the results of the checks that ran, and those that did not, with why. */
export interface DriftVerdict {
  readonly results: readonly DriftResult[];
  readonly unchecked: readonly UncheckedMode[];
}

/** One reason for several checks that did not run: `template: …; text: …`. */
export function reasonOfUnchecked(gaps: readonly UncheckedMode[]): string {
  return gaps.length === 1
    ? (gaps[0]?.reason ?? "")
    : gaps.map((g) => `${g.mode}: ${g.reason}`).join("; ");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the checks of `modes` on `t` (those without input are skipped by detectDrift). A check that
 * throws leaves `t` unchecked by every mode with the error; the rest of the file is still checked.
 */
export function runDriftChecks(
  t: Trajectory,
  tok: Tokenizer,
  modes: readonly DriftMode[],
  accelerator: RoundTripAccelerator | undefined,
): DriftVerdict {
  try {
    return { results: detectDrift(t, tok, { modes, accelerator }), unchecked: [] };
  } catch (error) {
    const reason = `cannot check drift: ${messageOf(error)}`;
    return { results: [], unchecked: modes.map((mode) => ({ mode, reason })) };
  }
}

/**
 * The whole rule on one trajectory: what cannot be checked (uncheckedFor), then the checks that
 * can (runDriftChecks). The CLI's worker threads run the second half on trajectories the first
 * admitted, so the parts add up to this.
 */
export function checkTrajectoryDrift(
  t: Trajectory,
  tok: Tokenizer,
  rules: DriftRules,
  accelerator: RoundTripAccelerator | undefined,
): DriftVerdict {
  const gaps = uncheckedFor(t, rules);
  if (gaps.length >= rules.modes.length) return { results: [], unchecked: gaps };
  const ran = runDriftChecks(t, tok, rules.modes, accelerator);
  return ran.unchecked.length > 0 ? ran : { results: ran.results, unchecked: gaps };
}

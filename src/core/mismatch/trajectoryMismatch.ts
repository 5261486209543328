import { laneNames, laneValues, looksLikeLogprobs, SAMPLED_LANE } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import {
  type Correction,
  computeMismatch,
  type MismatchResult,
  type MismatchStats,
} from "./mismatch";

const PREFERRED_LANES = ["trainer", "rescored", "reference", "teacher"];

/**
 * Metadata arrays whose name says they hold per-token values other than logprobs (atropos'
 * `token_scores` and `token_weights`, advantages, entropies, masks): never a default lane, even
 * where every value happens to be ≤ 0 (a group's negative reward spread over its tokens).
 * `--lanes` still names one explicitly.
 */
const NOT_LOGPROBS_NAME = /score|reward|weight|advantage|entrop|mask/i;

/** The two lanes compared by default: a rescored or trainer lane against the sampled logprobs. */
export function defaultLanes(t: Trajectory): [string, string] | undefined {
  // A stored preferred lane wins without looking through metadata (a file scan calls this per row).
  const stored = t.logprobLanes;
  if (stored) for (const n of PREFERRED_LANES) if (stored[n]) return [n, SAMPLED_LANE];
  // A metadata array of other per-token values (rewards, weights, entropy) is a lane by name only.
  const names = laneNames(t).filter((n) => {
    if (n === SAMPLED_LANE) return false;
    if (stored?.[n]) return true;
    if (NOT_LOGPROBS_NAME.test(n)) return false;
    const values = laneValues(t, n);
    return values !== undefined && looksLikeLogprobs(values);
  });
  const preferred = PREFERRED_LANES.find((n) => names.includes(n));
  const a = preferred ?? names[0];
  return a === undefined ? undefined : [a, SAMPLED_LANE];
}

/** The sampled logprobs as a typed array, NaN where none (no boxed numbers for a long lane). */
function sampledValues(t: Trajectory): Float64Array {
  let n = 0;
  for (const s of t.segments) n += s.tokenIds.length;
  const out = new Float64Array(n);
  let k = 0;
  for (const s of t.segments) {
    const lps = s.logprobs;
    for (let i = 0; i < lps.length; i++) out[k++] = lps[i] ?? Number.NaN;
  }
  return out;
}

/** Mismatch of lane `a` against lane `b` over the trained tokens of `t`, or why not. */
export function trajectoryMismatch(
  t: Trajectory,
  lanes: readonly [string, string],
  c: Correction,
): { ok: true; result: MismatchResult } | { ok: false; message: string } {
  const [nameA, nameB] = lanes;
  const a = nameA === SAMPLED_LANE ? sampledValues(t) : laneValues(t, nameA);
  const b = nameB === SAMPLED_LANE ? sampledValues(t) : laneValues(t, nameB);
  const missing = [a ? undefined : nameA, b ? undefined : nameB].filter(Boolean);
  if (!a || !b) {
    return {
      ok: false,
      message: `no lane ${missing.join(", ")} (lanes: ${laneNames(t).join(", ")})`,
    };
  }
  const mask = new Uint8Array(a.length);
  const segmentEnds: number[] = [];
  let k = 0;
  for (const s of t.segments) {
    const m = s.lossMask;
    for (let i = 0; i < m.length; i++) mask[k++] = m[i] ?? 0;
    segmentEnds.push(k);
  }
  return { ok: true, result: computeMismatch({ a, b, mask, segmentEnds }, c) };
}

/** Whole-file statistics: token-weighted means, max over trajectories, summed counts. */
export interface FileMismatchStats {
  readonly trajectories: number;
  readonly compared: number;
  readonly missing: number;
  readonly meanAbsDelta: number;
  readonly maxAbsDelta: number;
  readonly meanAbsDp: number;
  readonly k1: number;
  readonly k2: number;
  readonly k3: number;
  readonly clipped: number;
  readonly masked: number;
  readonly fractionCorrected: number;
}

/**
 * Whole-file statistics folded one trajectory at a time, in file order (a streamed scan holds
 * none of them): `add` each trajectory's stats, `finish` for the file's.
 */
export function mismatchTotals() {
  let trajectories = 0;
  let compared = 0;
  let missing = 0;
  let abs = 0;
  let max = 0;
  let dp = 0;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let clipped = 0;
  let masked = 0;
  return {
    add(s: MismatchStats): void {
      trajectories += 1;
      compared += s.compared;
      missing += s.missing;
      abs += s.meanAbsDelta * s.compared;
      max = Math.max(max, s.maxAbsDelta);
      dp += s.meanAbsDp * s.compared;
      k1 += s.k1 * s.compared;
      k2 += s.k2 * s.compared;
      k3 += s.k3 * s.compared;
      clipped += s.clipped;
      masked += s.masked;
    },
    finish(): FileMismatchStats {
      const mean = (x: number) => (compared === 0 ? 0 : x / compared);
      return {
        trajectories,
        compared,
        missing,
        meanAbsDelta: mean(abs),
        maxAbsDelta: max,
        meanAbsDp: mean(dp),
        k1: mean(k1),
        k2: mean(k2),
        k3: mean(k3),
        clipped,
        masked,
        fractionCorrected: mean(clipped + masked),
      };
    },
  };
}

export function aggregateMismatch(all: readonly MismatchStats[]): FileMismatchStats {
  const totals = mismatchTotals();
  for (const s of all) totals.add(s);
  return totals.finish();
}

import { tokenMismatch } from "../mismatch/mismatch";

/** The ratio band of the table: a token is "outside" when r = exp(δ) ∉ [0.9, 1.1]. */
export const RATIO_LOW = 0.9;
export const RATIO_HIGH = 1.1;

/** How far a knob's lane is from the baseline over the trained tokens (δ = lane − baseline, nats). */
export interface LaneDelta {
  /** Trained tokens where both lanes hold a finite value. */
  readonly compared: number;
  /** Trained tokens where either lane holds none: never counted as agreeing. */
  readonly missing: number;
  readonly meanAbsDelta: number;
  readonly maxAbsDelta: number;
  /** Token index (into the ids) of the largest |δ|; -1 when nothing is compared. */
  readonly maxAt: number;
  /** Mean of k3 = r − 1 − δ (verl `k3_kl`). */
  readonly k3: number;
  /** Compared tokens with r outside [RATIO_LOW, RATIO_HIGH]. */
  readonly outside: number;
  /** outside / compared; 0 when nothing is compared. */
  readonly fractionOutside: number;
}

/**
 * δ statistics of `lane` against `baseline` over the tokens whose `mask` is 1 (token index space
 * of the ids; all three arrays have one entry per id).
 */
export function laneDelta(
  lane: readonly (number | null)[],
  baseline: readonly (number | null)[],
  mask: readonly number[],
): LaneDelta {
  if (lane.length !== mask.length || baseline.length !== mask.length) {
    throw new Error(
      `lanes and mask differ in length: lane ${lane.length}, baseline ${baseline.length}, mask ${mask.length}`,
    );
  }
  let compared = 0;
  let missing = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let maxAt = -1;
  let sumK3 = 0;
  let outside = 0;
  for (let k = 0; k < mask.length; k++) {
    if (mask[k] !== 1) continue;
    const m = tokenMismatch(lane[k], baseline[k]);
    if (m === undefined) {
      missing++;
      continue;
    }
    compared++;
    const abs = Math.abs(m.delta);
    sumAbs += abs;
    if (abs > maxAbs || maxAt === -1) {
      maxAbs = abs;
      maxAt = k;
    }
    sumK3 += m.k3;
    if (m.r < RATIO_LOW || m.r > RATIO_HIGH) outside++;
  }
  const mean = (x: number) => (compared === 0 ? 0 : x / compared);
  return {
    compared,
    missing,
    meanAbsDelta: mean(sumAbs),
    maxAbsDelta: maxAbs,
    maxAt,
    k3: mean(sumK3),
    outside,
    fractionOutside: mean(outside),
  };
}

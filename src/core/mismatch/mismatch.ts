/**
 * Training–inference mismatch between two logprob lanes, token by token, and the rollout
 * corrections replayed on it. Definitions follow verl's rollout correction
 * (`volcengine/verl:verl/trainer/ppo/rollout_corr_helper.py`; docs/mismatch.md):
 * lane `a` plays π_train (verl `old_log_prob`), lane `b` π_rollout (`rollout_log_prob`).
 *
 *   δ = logp_a − logp_b,  r = exp(δ),  |Δp| = |exp(logp_a) − exp(logp_b)|
 *   k1 = −δ (verl `kl`, KL(π_b‖π_a) direct),  k2 = δ²/2,  k3 = r − 1 − δ (verl `k3_kl`)
 *
 * Pure: no DOM, no Node, typed arrays out.
 */

/** exp() of a log ratio is taken after clamping it to ±20, as verl's SAFETY_BOUND does. */
export const SAFETY_BOUND = 20;

/**
 * The corrections replayed:
 * - `token-trunc`: truncated IS per token (TIS; verl `rollout_is: token`): w = min(r, cap),
 *   a token is clipped when r > cap.
 * - `token-mask`: masked IS per token (verl `rollout_rs: token`): a token is masked when r is
 *   outside [lo, hi].
 * - `seq-trunc`: sequence-level truncated IS (verl `rollout_is: sequence`): ρ = exp(Σδ), w =
 *   min(ρ, cap) on every token; all are clipped when ρ > cap.
 * - `seq-mask`: sequence-level rejection (verl `rollout_rs: sequence`): all masked when ρ is
 *   outside [lo, hi].
 * - `geo-mask`: geometric-mean rejection (verl `rollout_rs: geometric`): ρ = exp(mean δ); all
 *   masked when outside [lo, hi].
 * Σ and mean run over the compared tokens; every ratio is exp of a log clamped to ±SAFETY_BOUND.
 */
export type CorrectionKind = "token-trunc" | "token-mask" | "seq-trunc" | "seq-mask" | "geo-mask";

export const CORRECTION_KINDS: readonly CorrectionKind[] = [
  "token-trunc",
  "token-mask",
  "seq-trunc",
  "seq-mask",
  "geo-mask",
];

export interface Correction {
  readonly kind: CorrectionKind;
  /** Truncation cap C of the `-trunc` kinds (verl `rollout_is_threshold`, default 2). */
  readonly cap: number;
  /** Bounds of the `-mask` kinds (verl `rollout_rs_threshold` and `_lower`, default [1/hi, hi]). */
  readonly lo: number;
  readonly hi: number;
}

/** A correction with verl's defaults: cap 2, hi = cap, lo = 1/hi. */
export function correction(
  kind: CorrectionKind,
  options: { cap?: number; lo?: number; hi?: number } = {},
): Correction {
  const cap = options.cap ?? 2;
  const hi = options.hi ?? cap;
  return { kind, cap, hi, lo: options.lo ?? 1 / hi };
}

/** What a correction did to one token. */
export const VERDICT = { none: 0, kept: 1, clipped: 2, masked: 3 } as const;
export type Verdict = (typeof VERDICT)[keyof typeof VERDICT];

export interface MismatchInput {
  /** Lane a (π_train) and lane b (π_rollout), one entry per token, null where absent. */
  readonly a: ArrayLike<number | null>;
  readonly b: ArrayLike<number | null>;
  /** Loss mask; only mask-1 tokens are compared (verl's response_mask). Absent: every token. */
  readonly mask?: ArrayLike<number>;
  /** End offset (exclusive) of each segment, for the per-segment counts. Absent: one segment. */
  readonly segmentEnds?: readonly number[];
}

export interface SegmentCounts {
  readonly compared: number;
  readonly clipped: number;
  readonly masked: number;
}

export interface MismatchStats {
  /** Tokens compared: mask 1, both lanes finite numbers. */
  readonly compared: number;
  /** Mask-1 tokens where a lane has no value. */
  readonly missing: number;
  readonly meanAbsDelta: number;
  readonly maxAbsDelta: number;
  /** Index of the token with the largest |δ| (−1 when none). */
  readonly maxAt: number;
  readonly meanAbsDp: number;
  readonly k1: number;
  readonly k2: number;
  readonly k3: number;
  /** Σδ over the compared tokens (log of the sequence-level ratio). */
  readonly sumDelta: number;
  /** ESS of the raw weights r as a fraction of the compared tokens: (Σr)² / (n·Σr²). */
  readonly ess: number;
  /** ESS of the corrected weights (masked tokens weigh 0). */
  readonly essCorrected: number;
  readonly clipped: number;
  readonly masked: number;
  /** (clipped + masked) / compared; 0 when nothing is compared. */
  readonly fractionCorrected: number;
  readonly segments: readonly SegmentCounts[];
}

export interface MismatchResult {
  readonly stats: MismatchStats;
  /** Per token: δ, NaN where not compared. */
  readonly delta: Float64Array;
  /** Per token: Σδ of the compared tokens up to and including this one. */
  readonly cumDelta: Float64Array;
  /** Per token: the corrected weight (0 where masked, NaN where not compared). */
  readonly weight: Float64Array;
  readonly verdict: Uint8Array;
}

/** One token's mismatch: δ, r, |Δp| and k3; undefined when a lane has no finite value there. */
export interface TokenMismatch {
  readonly delta: number;
  readonly r: number;
  readonly absDp: number;
  readonly k3: number;
}

/** The per-token quantities of the table above for logprobs `a` (π_train) and `b` (π_rollout). */
export function tokenMismatch(
  a: number | null | undefined,
  b: number | null | undefined,
): TokenMismatch | undefined {
  if (a === null || b === null || a === undefined || b === undefined) return undefined;
  const delta = a - b;
  if (!Number.isFinite(delta)) return undefined;
  const r = safeExp(delta);
  return { delta, r, absDp: Math.abs(Math.exp(a) - Math.exp(b)), k3: r - 1 - delta };
}

/** exp of a log ratio clamped to ±SAFETY_BOUND: every r and ρ is this. */
export function safeExp(logRatio: number): number {
  return Math.exp(Math.min(SAFETY_BOUND, Math.max(-SAFETY_BOUND, logRatio)));
}

function essOf(sum: number, sumSq: number, n: number): number {
  return n === 0 || sumSq === 0 ? 0 : (sum * sum) / (n * sumSq);
}

/**
 * The log of the sequence-level weight a correction decides by: Σδ for the sequence variants, its
 * mean for the geometric one, 0 (unused) for the token-level ones.
 */
function sequenceLogWeight(c: Correction, sum: number, compared: number): number {
  if (c.kind === "seq-trunc" || c.kind === "seq-mask") return sum;
  if (c.kind === "geo-mask") return compared > 0 ? sum / compared : 0;
  return 0;
}

/** True for the kinds that decide per token (by r), false for those that decide per sequence (ρ). */
export function isTokenLevel(c: Correction): boolean {
  return c.kind === "token-trunc" || c.kind === "token-mask";
}

/**
 * The verdict rule of every kind, on the weight it decides by (r for the token kinds, ρ for the
 * sequence kinds): a `-trunc` kind clips above the cap, a `-mask` kind masks outside [lo, hi].
 */
export function isCorrected(c: Correction, weight: number): boolean {
  return c.kind === "token-trunc" || c.kind === "seq-trunc"
    ? weight > c.cap
    : !(weight >= c.lo && weight <= c.hi);
}

/** ρ of a sequence kind from Σδ and the count compared (unused, 1, for the token kinds). */
export function sequenceWeight(c: Correction, sum: number, compared: number): number {
  return safeExp(sequenceLogWeight(c, sum, compared));
}

/** The mismatch of lanes a and b with `c` replayed. One pass to compare, one to correct. */
export function computeMismatch(input: MismatchInput, c: Correction): MismatchResult {
  const { a, b, mask } = input;
  const n = a.length;
  if (b.length !== n) throw new Error(`lanes differ in length: ${n} and ${b.length}`);
  if (mask && mask.length !== n) throw new Error(`mask has ${mask.length} entries, lanes ${n}`);
  const lanes = compareLanes(input);
  const { compared, sum } = lanes;
  const replay = replayCorrection(lanes, c, input.segmentEnds ?? [n]);
  const mean = (x: number) => (compared === 0 ? 0 : x / compared);
  return {
    stats: {
      compared,
      missing: lanes.missing,
      meanAbsDelta: mean(lanes.sumAbs),
      maxAbsDelta: lanes.maxAbs,
      maxAt: lanes.maxAt,
      meanAbsDp: mean(lanes.sumDp),
      k1: mean(lanes.k1),
      k2: mean(lanes.k2),
      k3: mean(lanes.k3),
      sumDelta: sum,
      ess: essOf(lanes.rSum, lanes.rSumSq, compared),
      essCorrected: essOf(replay.wSum, replay.wSumSq, compared),
      clipped: replay.clipped,
      masked: replay.masked,
      fractionCorrected: compared === 0 ? 0 : (replay.clipped + replay.masked) / compared,
      segments: replay.segments,
    },
    delta: lanes.delta,
    cumDelta: lanes.cumDelta,
    weight: lanes.weight,
    verdict: replay.verdict,
  };
}

/** Lanes a and b compared token by token (computeMismatch's first pass): δ, Σδ, r and the sums. */
interface LaneComparison {
  readonly delta: Float64Array;
  readonly cumDelta: Float64Array;
  /** r per compared token (NaN elsewhere); the second pass overwrites it with the weight. */
  readonly weight: Float64Array;
  readonly compared: number;
  readonly missing: number;
  readonly sum: number;
  readonly sumAbs: number;
  readonly maxAbs: number;
  readonly maxAt: number;
  readonly sumDp: number;
  readonly k1: number;
  readonly k2: number;
  readonly k3: number;
  readonly rSum: number;
  readonly rSumSq: number;
}

function compareLanes({ a, b, mask }: MismatchInput): LaneComparison {
  const n = a.length;
  const delta = new Float64Array(n).fill(Number.NaN);
  const cumDelta = new Float64Array(n);
  const weight = new Float64Array(n).fill(Number.NaN);
  let compared = 0;
  let missing = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let maxAt = -1;
  let sumDp = 0;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let sum = 0;
  let rSum = 0;
  let rSumSq = 0;
  for (let k = 0; k < n; k++) {
    if (mask && mask[k] !== 1) {
      cumDelta[k] = sum;
      continue;
    }
    const x = a[k];
    const y = b[k];
    if (x === null || y === null || x === undefined || y === undefined) {
      missing += 1;
      cumDelta[k] = sum;
      continue;
    }
    const d = x - y;
    if (!Number.isFinite(d)) {
      missing += 1;
      cumDelta[k] = sum;
      continue;
    }
    compared += 1;
    delta[k] = d;
    sum += d;
    cumDelta[k] = sum;
    const abs = Math.abs(d);
    sumAbs += abs;
    if (abs > maxAbs || maxAt < 0) {
      maxAbs = abs;
      maxAt = k;
    }
    const r = safeExp(d);
    // |e^x − e^y| = e^y·|r − 1| while r is unclamped: one exp fewer per token.
    sumDp +=
      Math.abs(d) < SAFETY_BOUND
        ? Math.exp(y) * Math.abs(r - 1)
        : Math.abs(Math.exp(x) - Math.exp(y));
    weight[k] = r;
    k1 -= d;
    k2 += (d * d) / 2;
    k3 += r - 1 - d;
    rSum += r;
    rSumSq += r * r;
  }
  const sums = { sumAbs, maxAbs, maxAt, sumDp, k1, k2, k3, rSum, rSumSq };
  return { delta, cumDelta, weight, compared, missing, sum, ...sums };
}

/** What replaying a correction did: each token's verdict, the counts by segment and in all. */
interface CorrectionReplay {
  readonly verdict: Uint8Array;
  readonly segments: readonly SegmentCounts[];
  readonly clipped: number;
  readonly masked: number;
  readonly wSum: number;
  readonly wSumSq: number;
}

/**
 * Correction `c` replayed on the compared tokens (computeMismatch's second pass): each token's
 * weight (into `lanes.weight`, over r) and verdict, counted per segment of `ends`.
 */
function replayCorrection(
  lanes: LaneComparison,
  c: Correction,
  ends: readonly number[],
): CorrectionReplay {
  const { delta, weight } = lanes;
  const n = delta.length;
  const verdict = new Uint8Array(n);
  const rho = sequenceWeight(c, lanes.sum, lanes.compared);
  const segments: { compared: number; clipped: number; masked: number }[] = ends.map(() => ({
    compared: 0,
    clipped: 0,
    masked: 0,
  }));
  let clipped = 0;
  let masked = 0;
  let wSum = 0;
  let wSumSq = 0;
  // The verdict rule as numbers, decided once: truncation or bounds, of r or of ρ.
  const isTrunc = c.kind === "token-trunc" || c.kind === "seq-trunc";
  const isToken = isTokenLevel(c);
  const { cap } = c;
  let from = 0;
  // Tokens past the last end count in the last segment; with no segments at all, only in total.
  const spans = Math.max(1, segments.length);
  for (let s = 0; s < spans; s++) {
    const seg = segments[s];
    const to = s === spans - 1 ? n : Math.min(n, ends[s] ?? n);
    let segCompared = 0;
    let segClipped = 0;
    let segMasked = 0;
    for (let k = from; k < to; k++) {
      if (Number.isNaN(delta[k] as number)) continue;
      const r = isToken ? (weight[k] as number) : rho;
      let w: number;
      let v: Verdict = VERDICT.kept;
      const corrected = isCorrected(c, r);
      if (isTrunc) {
        w = r < cap ? r : cap;
        if (corrected) {
          v = VERDICT.clipped;
          segClipped++;
        }
      } else if (!corrected) {
        w = r;
      } else {
        w = 0;
        v = VERDICT.masked;
        segMasked++;
      }
      weight[k] = w;
      verdict[k] = v;
      wSum += w;
      wSumSq += w * w;
      segCompared++;
    }
    if (seg) {
      seg.compared += segCompared;
      seg.clipped += segClipped;
      seg.masked += segMasked;
    }
    clipped += segClipped;
    masked += segMasked;
    from = Math.max(from, to);
  }
  return { verdict, segments, clipped, masked, wSum, wSumSq };
}

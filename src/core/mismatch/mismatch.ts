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

/**
 * The mismatch of lanes a and b with `c` replayed: the compared tokens gathered in token order
 * (δ and Σδ per token on the way), their statistics and weights in one pass (comparedStats).
 */
export function computeMismatch(input: MismatchInput, c: Correction): MismatchResult {
  const { a, b, mask } = input;
  const n = a.length;
  if (b.length !== n) throw new Error(`lanes differ in length: ${n} and ${b.length}`);
  if (mask && mask.length !== n) throw new Error(`mask has ${mask.length} entries, lanes ${n}`);
  const tokens: ComparedTokens = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    d: new Float64Array(n),
    k: new Float64Array(n),
    w: new Float64Array(n),
    v: new Uint8Array(n),
  };
  const delta = new Float64Array(n).fill(Number.NaN);
  const cumDelta = new Float64Array(n);
  let compared = 0;
  let trained = 0;
  let sum = 0;
  for (let k = 0; k < n; k++) {
    cumDelta[k] = sum;
    if (mask && mask[k] !== 1) continue;
    trained++;
    const x = a[k];
    const y = b[k];
    if (x === null || y === null || x === undefined || y === undefined) continue;
    const d = x - y;
    if (!Number.isFinite(d)) continue;
    tokens.x[compared] = x;
    tokens.y[compared] = y;
    tokens.d[compared] = d;
    tokens.k[compared] = k;
    compared++;
    delta[k] = d;
    sum += d;
    cumDelta[k] = sum;
  }
  const ends = input.segmentEnds ?? [n];
  const stats = comparedStats(tokens, { n: compared, trained, total: n, ends }, c);
  const weight = new Float64Array(n).fill(Number.NaN);
  const verdict = new Uint8Array(n);
  for (let j = 0; j < compared; j++) {
    const k = tokens.k[j] as number;
    weight[k] = tokens.w[j] as number;
    verdict[k] = tokens.v[j] as number;
  }
  return { stats, delta, cumDelta, weight, verdict };
}

/*
 * A trajectory's mismatch statistics (MismatchStats) from its compared tokens alone,
 * gathered in token order: the one implementation behind computeMismatch and the file scan's
 * rows (fileMismatch.ts, which gathers a row once for its charts and these). Every sum is taken
 * in token order, so the numbers do not depend on who gathered the tokens.
 */

/**
 * A row's compared tokens in token order (the scan's RowScratch, or computeMismatch's own):
 * `x`, `y` lane a and b, `d` = x − y (finite), `k` the token index, increasing. `w` and `v` are
 * written: each token's corrected weight and verdict.
 */
export interface ComparedTokens {
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly d: Float64Array;
  readonly k: Float64Array;
  readonly w: Float64Array;
  readonly v: Uint8Array;
}

/** Where the compared tokens are: `n` of them, of `trained` mask-1 tokens among `total`. */
export interface ComparedCounts {
  readonly n: number;
  readonly trained: number;
  readonly total: number;
  /** End offset (exclusive) of each segment, as MismatchInput.segmentEnds. */
  readonly ends: readonly number[];
}

/** A segment's counts while they are added up. */
type SegmentTally = { -readonly [K in keyof SegmentCounts]: SegmentCounts[K] };

/** The sums of the compared tokens, then of their corrected weights, and the corrections. */
interface Sums {
  sum: number;
  sumAbs: number;
  maxAbs: number;
  maxAt: number;
  sumDp: number;
  k1: number;
  k2: number;
  k3: number;
  rSum: number;
  rSumSq: number;
  wSum: number;
  wSumSq: number;
  clipped: number;
  masked: number;
}

/**
 * The statistics of the compared tokens of `tokens` under correction `c`, with each token's
 * weight and verdict written into `tokens.w` and `.v`. Token kinds are decided in the one pass;
 * the sequence kinds, whose ρ needs Σδ, weigh every token alike after it.
 */
export function comparedStats(
  tokens: ComparedTokens,
  counts: ComparedCounts,
  c: Correction,
): MismatchStats {
  const { n, ends } = counts;
  const segments = ends.map(() => ({ compared: 0, clipped: 0, masked: 0 }));
  const s = tokenPass(tokens, counts, c, segments);
  if (!isTokenLevel(c)) weighSequence(tokens, n, c, s, segments);
  const mean = (x: number) => (n === 0 ? 0 : x / n);
  return {
    compared: n,
    missing: counts.trained - n,
    meanAbsDelta: mean(s.sumAbs),
    maxAbsDelta: s.maxAbs,
    maxAt: s.maxAt,
    meanAbsDp: mean(s.sumDp),
    k1: mean(s.k1),
    k2: mean(s.k2),
    k3: mean(s.k3),
    sumDelta: s.sum,
    ess: essOf(s.rSum, s.rSumSq, n),
    essCorrected: essOf(s.wSum, s.wSumSq, n),
    clipped: s.clipped,
    masked: s.masked,
    fractionCorrected: n === 0 ? 0 : (s.clipped + s.masked) / n,
    segments,
  };
}

/**
 * Segment `s`'s end as computeMismatch has always cut them: the last segment runs to `total`
 * (tokens past the last end count in it), and a segment never ends past `total`.
 */
function segmentEnd(ends: readonly number[], s: number, total: number): number {
  return s >= ends.length - 1 ? total : Math.min(total, ends[s] ?? total);
}

/** Adds a segment's counts (none when there are no segments). */
function addSegment(
  into: SegmentTally | undefined,
  compared: number,
  clipped: number,
  masked: number,
): void {
  if (!into) return;
  into.compared += compared;
  into.clipped += clipped;
  into.masked += masked;
}

/** The one pass over the compared tokens: the sums, and a token kind's weights and verdicts. */
function tokenPass(
  tokens: ComparedTokens,
  { n, total, ends }: ComparedCounts,
  c: Correction,
  segments: SegmentTally[],
): Sums {
  const { x: xs, y: ys, d: ds, k: ks, w: ws, v: vs } = tokens;
  const isToken = isTokenLevel(c);
  const isTrunc = c.kind === "token-trunc" || c.kind === "seq-trunc";
  const { cap } = c;
  let sum = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let maxAt = -1;
  let sumDp = 0;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let rSum = 0;
  let rSumSq = 0;
  let wSum = 0;
  let wSumSq = 0;
  let clipped = 0;
  let masked = 0;
  // The segment of the token at hand: tokens come in index order, segments are stepped through.
  let seg = 0;
  let segTo = segmentEnd(ends, 0, total);
  let segCompared = 0;
  let segClipped = 0;
  let segMasked = 0;
  for (let j = 0; j < n; j++) {
    const k = ks[j] as number;
    if (k >= segTo) {
      addSegment(segments[seg], segCompared, segClipped, segMasked);
      segCompared = 0;
      segClipped = 0;
      segMasked = 0;
      while (k >= segTo && seg < ends.length - 1) segTo = segmentEnd(ends, ++seg, total);
    }
    const x = xs[j] as number;
    const y = ys[j] as number;
    const d = ds[j] as number;
    sum += d;
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
    k1 -= d;
    k2 += (d * d) / 2;
    k3 += r - 1 - d;
    rSum += r;
    rSumSq += r * r;
    segCompared++;
    if (!isToken) continue;
    let w = r;
    let v: number = VERDICT.kept;
    if (isCorrected(c, r)) {
      if (isTrunc) {
        v = VERDICT.clipped;
        segClipped++;
        clipped++;
      } else {
        w = 0;
        v = VERDICT.masked;
        segMasked++;
        masked++;
      }
    }
    if (isTrunc) w = r < cap ? r : cap;
    ws[j] = w;
    vs[j] = v;
    wSum += w;
    wSumSq += w * w;
  }
  addSegment(segments[seg], segCompared, segClipped, segMasked);
  return {
    sum,
    sumAbs,
    maxAbs,
    maxAt,
    sumDp,
    k1,
    k2,
    k3,
    rSum,
    rSumSq,
    wSum,
    wSumSq,
    clipped,
    masked,
  };
}

/**
 * A sequence kind's correction, after the pass: ρ from Σδ decides every compared token alike,
 * all clipped (or masked) or none; the weights summed in token order as the token kinds'.
 */
function weighSequence(
  tokens: ComparedTokens,
  n: number,
  c: Correction,
  s: Sums,
  segments: SegmentTally[],
): void {
  const rho = sequenceWeight(c, s.sum, n);
  const corrected = isCorrected(c, rho);
  const isTrunc = c.kind === "seq-trunc";
  let w = rho;
  if (isTrunc) w = rho < c.cap ? rho : c.cap;
  else if (corrected) w = 0;
  const v = !corrected ? VERDICT.kept : isTrunc ? VERDICT.clipped : VERDICT.masked;
  const { w: ws, v: vs } = tokens;
  let wSum = 0;
  let wSumSq = 0;
  for (let j = 0; j < n; j++) {
    ws[j] = w;
    vs[j] = v;
    wSum += w;
    wSumSq += w * w;
  }
  s.wSum = wSum;
  s.wSumSq = wSumSq;
  if (!corrected) return;
  for (const seg of segments) {
    if (isTrunc) seg.clipped = seg.compared;
    else seg.masked = seg.compared;
  }
  if (isTrunc) s.clipped = n;
  else s.masked = n;
}

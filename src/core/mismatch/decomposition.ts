/**
 * Where a token's mismatch comes from (docs/mismatch.md "Decomposition"). For
 * each compared token, δ = log π_a − log π_b splits into
 *
 *   δ = temperature + support + residual
 *
 * - temperature = (log p_{T_a} − log p_{T_b})(token): the two lanes read the same logits at
 *   different temperatures (a rollout sampled at T, a rescore at T = 1);
 * - support = s_a − s_b, s_X = −log Σ_{k ∈ kept} p_{T_X}(k) when lane X is renormalised over the
 *   sampler's kept set (top-p / top-k / min-p), else 0;
 * - residual = δ − temperature − support: engine or kernel noise, batch shapes, weights.
 *
 * p_θ comes from the recorded top-k: logits z_j = τ·ℓ_j (ℓ the top-k logprobs at temperature τ,
 * SGLang's convention: temperature-scaled, before filtering), p_θ = softmax(z/θ) over the listed
 * ids. A top-k whose mass sums to 1 is the whole support (exact); a partial one gives an
 * approximation, labelled so. Where an input is missing the term is unknown (NaN), never 0.
 * Pure: typed arrays in and out.
 */

/** How one lane's logprobs were produced, as far as the record says. */
export interface LaneConvention {
  /** The temperature the logprobs are at (1: prompt scoring); undefined when not known. */
  readonly temperature?: number;
  /** Renormalised over the sampler's kept set; undefined when not known. */
  readonly renormalized?: boolean;
}

/** SGLang's sampling filter (`top_k` ≤ 0 or −1: off; `top_p` 1: off; `min_p` 0: off). */
export interface SamplingFilter {
  readonly topP: number;
  readonly topK: number;
  readonly minP: number;
}

export interface DecompositionInput {
  /** Lane a (π_train) and lane b (π_rollout), one entry per token, null where absent. */
  readonly a: ArrayLike<number | null>;
  readonly b: ArrayLike<number | null>;
  /** Loss mask; only mask-1 tokens are compared. Absent: every token. */
  readonly mask?: ArrayLike<number>;
  readonly tokenIds: ArrayLike<number>;
  readonly laneA: LaneConvention;
  readonly laneB: LaneConvention;
  /** Top-k per token, `[id, logprob]` pairs, null where none was recorded. */
  readonly topK?: ArrayLike<readonly TopEntry[] | null | undefined>;
  /** The temperature the top-k logprobs are at; undefined: the top-k cannot be used. */
  readonly topKTemperature?: number;
  /** The kept set the sampler recorded at a token; undefined where none was recorded. */
  readonly kept?: (token: number) => readonly number[] | undefined;
  /** The sampling filter, to compute a kept set from the top-k; undefined when not known. */
  readonly filter?: SamplingFilter;
  /** The sampling temperature the filter ran at (the kept set is taken from p at it). */
  readonly samplingTemperature?: number;
}

export interface TopEntry {
  readonly tokenId: number;
  readonly logprob: number;
}

/** Per-token status bits. */
export const TERM = {
  compared: 1,
  temperatureApprox: 2,
  temperatureUnknown: 4,
  supportApprox: 8,
  supportUnknown: 16,
  /** The kept set was computed from the sampling params and the top-k, not recorded. */
  keptComputed: 32,
} as const;

/** Spurious: explained by temperature / support; real: the residual keeps it. */
export type RowVerdict = "none" | "spurious" | "real" | "unchecked";

export interface DecompositionSummary {
  readonly compared: number;
  /** Compared tokens whose two terms are both known (exact or approximate). */
  readonly known: number;
  /** Known tokens where a term is an approximation (partial top-k, or a computed kept set). */
  readonly approximate: number;
  readonly unknownTemperature: number;
  readonly unknownSupport: number;
  /** Means over the known tokens. */
  readonly meanAbsDelta: number;
  readonly meanAbsTemperature: number;
  readonly meanAbsSupport: number;
  readonly meanAbsResidual: number;
  /** Known tokens with r = exp(δ) (resp. exp(residual)) outside [0.9, 1.1]. */
  readonly outsideDelta: number;
  readonly outsideResidual: number;
  readonly verdict: RowVerdict;
}

export interface Decomposition {
  /** Per token: NaN where not compared or unknown. */
  readonly temperature: Float64Array;
  readonly support: Float64Array;
  readonly residual: Float64Array;
  /** Per token `TERM` bits. */
  readonly status: Uint8Array;
  readonly summary: DecompositionSummary;
}

/** The ratio band the verdict counts against (trl #6789's [0.9, 1.1]). */
export const BAND_LOW = Math.log(0.9);
export const BAND_HIGH = Math.log(1.1);
/** A top-k is the whole support when its mass is 1 to within this. */
const COMPLETE_MASS = 1e-6;

const finite = (v: number | null | undefined): v is number =>
  typeof v === "number" && Number.isFinite(v);

/** SGLang treats T below 1e-6 as greedy and reports the unscaled distribution. */
const effective = (t: number) => (t < 1e-6 ? 1 : t);

/**
 * A token's top-k as logits z = τ·ℓ (up to a constant) in a scratch buffer reused token after
 * token, with whether it is the whole support, and log Σ exp(z/θ) kept for the last two θ.
 */
class Logits {
  z = new Float64Array(64);
  n = 0;
  self = -1;
  isComplete = false;
  top: readonly TopEntry[] = [];
  private theta0 = Number.NaN;
  private lse0 = 0;
  private theta1 = Number.NaN;
  private lse1 = 0;

  /** Loads `top` at temperature `tau`; false when the token is not among it. */
  load(top: readonly TopEntry[], tau: number, id: number): boolean {
    const n = top.length;
    if (this.z.length < n) this.z = new Float64Array(2 * n);
    let mass = 0;
    let self = -1;
    for (let j = 0; j < n; j++) {
      const e = top[j] as TopEntry;
      this.z[j] = tau * e.logprob;
      mass += Math.exp(e.logprob);
      if (e.tokenId === id) self = j;
    }
    this.n = n;
    this.self = self;
    this.top = top;
    this.isComplete = Math.abs(mass - 1) <= COMPLETE_MASS;
    this.theta0 = Number.NaN;
    this.theta1 = Number.NaN;
    return self >= 0;
  }

  /** log Σ_j exp(z_j / θ) over every listed id. */
  lse(theta: number): number {
    if (theta === this.theta0) return this.lse0;
    if (theta === this.theta1) return this.lse1;
    const value = this.lseOver(theta, undefined);
    this.theta1 = this.theta0;
    this.lse1 = this.lse0;
    this.theta0 = theta;
    this.lse0 = value;
    return value;
  }

  /** log Σ exp(z_j / θ) over `indices` (every listed id when undefined). */
  lseOver(theta: number, indices: readonly number[] | undefined): number {
    const z = this.z;
    const n = indices ? indices.length : this.n;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < n; k++) {
      const v = (z[indices ? (indices[k] as number) : k] as number) / theta;
      if (v > max) max = v;
    }
    if (max === Number.NEGATIVE_INFINITY) return max;
    let sum = 0;
    for (let k = 0; k < n; k++) {
      sum += Math.exp((z[indices ? (indices[k] as number) : k] as number) / theta - max);
    }
    return max + Math.log(sum);
  }

  /** log p_θ(token). */
  logp(theta: number): number {
    return (this.z[this.self] as number) / theta - this.lse(theta);
  }

  /** Index of `id` among the listed ids, −1 when absent. */
  indexOf(id: number): number {
    const top = this.top;
    for (let j = 0; j < this.n; j++) if ((top[j] as TopEntry).tokenId === id) return j;
    return -1;
  }
}

/** The kept indices SGLang's filter keeps from p_T (sorted, rank < top_k, mass before ≤ top_p). */
function keptFromFilter(l: Logits, filter: SamplingFilter, temperature: number): number[] {
  const theta = effective(temperature);
  const lse = l.lse(theta);
  const p = Array.from({ length: l.n }, (_, j) => Math.exp((l.z[j] as number) / theta - lse));
  const order = p.map((_, j) => j).sort((x, y) => (p[y] ?? 0) - (p[x] ?? 0));
  if (temperature < 1e-6) return order.slice(0, 1);
  const pMax = p[order[0] ?? 0] ?? 0;
  const kept: number[] = [];
  let before = 0;
  order.forEach((j, rank) => {
    const pj = p[j] ?? 0;
    const isInTopK = filter.topK < 1 || rank < filter.topK;
    if (isInTopK && before <= filter.topP && pj >= filter.minP * pMax) kept.push(j);
    before += pj;
  });
  return kept;
}

/** Whether the filter can drop anything. */
export function isFiltering(filter: SamplingFilter): boolean {
  return filter.topP < 1 || filter.topK >= 1 || filter.minP > 0;
}

/** Quality of a term: exact, approximate, unknown. */
const EXACT = 0;
const APPROX = 1;
const UNKNOWN = 2;

/** One term being worked out: its value and quality, written by the term functions. */
class Term {
  value = 0;
  quality = EXACT;
  keptComputed = false;

  set(value: number, quality: number, keptComputed = false): Term {
    this.value = value;
    this.quality = quality;
    this.keptComputed = keptComputed;
    return this;
  }
}

function temperatureTerm(input: DecompositionInput, logits: Logits | undefined, out: Term): Term {
  const ta = input.laneA.temperature;
  const tb = input.laneB.temperature;
  if (ta === undefined || tb === undefined) return out.set(Number.NaN, UNKNOWN);
  if (effective(ta) === effective(tb)) return out.set(0, EXACT);
  if (!logits) return out.set(Number.NaN, UNKNOWN);
  const value = logits.logp(effective(ta)) - logits.logp(effective(tb));
  return out.set(value, logits.isComplete ? EXACT : APPROX);
}

/** The kept indices into `logits`: the recorded ids found there, or computed from the filter. */
function keptIndices(
  input: DecompositionInput,
  recorded: readonly number[] | undefined,
  logits: Logits,
): number[] | undefined {
  if (recorded) {
    const indices: number[] = [];
    for (const id of recorded) {
      const j = logits.indexOf(id);
      if (j < 0) return undefined;
      indices.push(j);
    }
    return indices;
  }
  const t = input.samplingTemperature;
  if (!input.filter || t === undefined) return undefined;
  return keptFromFilter(logits, input.filter, t);
}

/** s_X of one lane into `out`: −log of the kept mass under it when it is renormalised. */
function laneShift(
  lane: LaneConvention,
  input: DecompositionInput,
  recorded: readonly number[] | undefined,
  logits: Logits | undefined,
  out: Term,
): Term {
  if (lane.renormalized === false) return out.set(0, EXACT);
  if (input.filter && !isFiltering(input.filter) && !recorded) return out.set(0, EXACT);
  if (lane.renormalized === undefined || lane.temperature === undefined || !logits) {
    return out.set(Number.NaN, UNKNOWN);
  }
  const kept = keptIndices(input, recorded, logits);
  if (!kept || kept.length === 0) return out.set(Number.NaN, UNKNOWN);
  const theta = effective(lane.temperature);
  const value = -(logits.lseOver(theta, kept) - logits.lse(theta));
  // A complete top-k gives the exact mass, and the exact kept set when it is computed.
  return out.set(value, logits.isComplete ? EXACT : APPROX, !recorded);
}

function supportTerm(
  input: DecompositionInput,
  recorded: readonly number[] | undefined,
  logits: Logits | undefined,
  scratch: readonly [Term, Term],
  out: Term,
): Term {
  const a = laneShift(input.laneA, input, recorded, logits, scratch[0]);
  const b = laneShift(input.laneB, input, recorded, logits, scratch[1]);
  if (a.quality === UNKNOWN || b.quality === UNKNOWN) return out.set(Number.NaN, UNKNOWN);
  return out.set(
    a.value - b.value,
    Math.max(a.quality, b.quality),
    a.keptComputed || b.keptComputed,
  );
}

function statusBits(temperature: Term, support: Term): number {
  let bits: number = TERM.compared;
  if (temperature.quality === APPROX) bits |= TERM.temperatureApprox;
  if (temperature.quality === UNKNOWN) bits |= TERM.temperatureUnknown;
  if (support.quality === APPROX) bits |= TERM.supportApprox;
  if (support.quality === UNKNOWN) bits |= TERM.supportUnknown;
  if (support.keptComputed) bits |= TERM.keptComputed;
  return bits;
}

/** Whether either term can need the top-k: otherwise it is not even loaded. */
function needsLogits(input: DecompositionInput): boolean {
  const { laneA, laneB } = input;
  const isSameT =
    laneA.temperature !== undefined &&
    laneB.temperature !== undefined &&
    effective(laneA.temperature) === effective(laneB.temperature);
  return !isSameT || laneA.renormalized !== false || laneB.renormalized !== false;
}

const outside = (x: number) => x < BAND_LOW || x > BAND_HIGH;

/** Splits every compared token's δ into temperature, support and residual (see the top). */
export function decomposeMismatch(input: DecompositionInput): Decomposition {
  const n = input.a.length;
  const temperature = new Float64Array(n).fill(Number.NaN);
  const support = new Float64Array(n).fill(Number.NaN);
  const residual = new Float64Array(n).fill(Number.NaN);
  const status = new Uint8Array(n);
  const acc = newAccumulator();
  const tau = input.topKTemperature;
  const isReading = tau !== undefined && needsLogits(input);
  const logits = new Logits();
  const t = new Term();
  const s = new Term();
  const scratch = [new Term(), new Term()] as const;
  for (let i = 0; i < n; i++) {
    const a = input.a[i];
    const b = input.b[i];
    if ((input.mask && input.mask[i] !== 1) || !finite(a) || !finite(b)) continue;
    const top = isReading ? input.topK?.[i] : undefined;
    const id = input.tokenIds[i] ?? -1;
    const loaded =
      top && tau !== undefined && logits.load(top, effective(tau), id) ? logits : undefined;
    const recorded = input.kept?.(i);
    temperatureTerm(input, loaded, t);
    supportTerm(input, recorded, loaded, scratch, s);
    status[i] = statusBits(t, s);
    temperature[i] = t.value;
    support[i] = s.value;
    const delta = a - b;
    if (t.quality !== UNKNOWN && s.quality !== UNKNOWN) residual[i] = delta - t.value - s.value;
    acc.add(delta, t, s, residual[i] as number);
  }
  return { temperature, support, residual, status, summary: acc.summary() };
}

function newAccumulator() {
  let compared = 0;
  let known = 0;
  let approximate = 0;
  let unknownTemperature = 0;
  let unknownSupport = 0;
  let sumDelta = 0;
  let sumTemperature = 0;
  let sumSupport = 0;
  let sumResidual = 0;
  let outsideDelta = 0;
  let outsideResidual = 0;
  return {
    add(delta: number, t: Term, s: Term, res: number) {
      compared++;
      if (t.quality === UNKNOWN) unknownTemperature++;
      if (s.quality === UNKNOWN) unknownSupport++;
      if (t.quality === UNKNOWN || s.quality === UNKNOWN) return;
      known++;
      if (t.quality === APPROX || s.quality === APPROX) approximate++;
      sumDelta += Math.abs(delta);
      sumTemperature += Math.abs(t.value);
      sumSupport += Math.abs(s.value);
      sumResidual += Math.abs(res);
      if (outside(delta)) outsideDelta++;
      if (outside(res)) outsideResidual++;
    },
    summary(): DecompositionSummary {
      const mean = (x: number) => (known > 0 ? x / known : Number.NaN);
      return {
        compared,
        known,
        approximate,
        unknownTemperature,
        unknownSupport,
        meanAbsDelta: mean(sumDelta),
        meanAbsTemperature: mean(sumTemperature),
        meanAbsSupport: mean(sumSupport),
        meanAbsResidual: mean(sumResidual),
        outsideDelta,
        outsideResidual,
        verdict: verdictOf(compared, known, outsideDelta, outsideResidual),
      };
    },
  };
}

/**
 * A row's verdict: `unchecked` when no token was compared or some compared token has an unknown
 * term (nothing is judged on part of a row), `none` when no token is outside the band, `spurious` when the residual
 * leaves at most a quarter of δ's out-of-band tokens out of band, `real` otherwise.
 */
export function verdictOf(
  compared: number,
  known: number,
  outsideDelta: number,
  outsideResidual: number,
): RowVerdict {
  // A row with no compared token was not judged: unchecked, never "within the band".
  if (compared === 0 || known < compared) return "unchecked";
  if (outsideDelta === 0) return "none";
  return outsideResidual * 4 <= outsideDelta ? "spurious" : "real";
}

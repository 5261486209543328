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

/** log Σ exp(z_j / θ) over `indices` (all when undefined). */
function logSumExp(z: Float64Array, theta: number, indices?: readonly number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  const n = indices ? indices.length : z.length;
  for (let k = 0; k < n; k++)
    max = Math.max(max, (z[indices ? (indices[k] ?? 0) : k] ?? 0) / theta);
  if (max === Number.NEGATIVE_INFINITY) return max;
  let sum = 0;
  for (let k = 0; k < n; k++)
    sum += Math.exp((z[indices ? (indices[k] ?? 0) : k] ?? 0) / theta - max);
  return max + Math.log(sum);
}

/** A token's top-k as logits (z = τ·ℓ, up to a constant), with whether it is the whole support. */
interface Logits {
  readonly ids: readonly number[];
  readonly z: Float64Array;
  readonly self: number;
  readonly isComplete: boolean;
}

function logitsOf(top: readonly TopEntry[], tau: number, id: number): Logits | undefined {
  const z = new Float64Array(top.length);
  let mass = 0;
  let self = -1;
  top.forEach((e, j) => {
    z[j] = tau * e.logprob;
    mass += Math.exp(e.logprob);
    if (e.tokenId === id) self = j;
  });
  if (self < 0 || top.length === 0) return undefined;
  const ids = top.map((e) => e.tokenId);
  return { ids, z, self, isComplete: Math.abs(mass - 1) <= COMPLETE_MASS };
}

/** log p_θ(self) from the logits. */
function logpAt(l: Logits, theta: number): number {
  return (l.z[l.self] ?? 0) / theta - logSumExp(l.z, theta);
}

/** The kept indices SGLang's filter keeps from p_T (sorted, rank < top_k, mass before ≤ top_p). */
function keptFromFilter(l: Logits, filter: SamplingFilter, temperature: number): number[] {
  const lse = logSumExp(l.z, effective(temperature));
  const p = [...l.z].map((z) => Math.exp(z / effective(temperature) - lse));
  const order = p.map((_, j) => j).sort((x, y) => (p[y] ?? 0) - (p[x] ?? 0));
  if (temperature < 1e-6) return order.slice(0, 1);
  const pMax = p[order[0] ?? 0] ?? 0;
  const kept: number[] = [];
  let before = 0;
  order.forEach((j, rank) => {
    const pj = p[j] ?? 0;
    if (
      (filter.topK < 1 || rank < filter.topK) &&
      before <= filter.topP &&
      pj >= filter.minP * pMax
    ) {
      kept.push(j);
    }
    before += pj;
  });
  return kept;
}

/** Whether the filter can drop anything. */
export function isFiltering(filter: SamplingFilter): boolean {
  return filter.topP < 1 || filter.topK >= 1 || filter.minP > 0;
}

interface Term {
  readonly value: number;
  /** 0 exact, 1 approximate, 2 unknown. */
  readonly quality: 0 | 1 | 2;
  readonly keptComputed?: boolean;
}

const UNKNOWN: Term = { value: Number.NaN, quality: 2 };
const ZERO: Term = { value: 0, quality: 0 };

function temperatureTerm(input: DecompositionInput, logits: Logits | undefined): Term {
  const ta = input.laneA.temperature;
  const tb = input.laneB.temperature;
  if (ta === undefined || tb === undefined) return UNKNOWN;
  if (effective(ta) === effective(tb)) return ZERO;
  if (!logits) return UNKNOWN;
  const value = logpAt(logits, effective(ta)) - logpAt(logits, effective(tb));
  return { value, quality: logits.isComplete ? 0 : 1 };
}

/** The kept indices into `logits`: recorded ids found there, or computed from the filter. */
function keptIndices(
  input: DecompositionInput,
  token: number,
  logits: Logits,
): { indices: number[]; computed: boolean } | undefined {
  const recorded = input.kept?.(token);
  if (recorded) {
    const indices = recorded.map((id) => logits.ids.indexOf(id));
    return indices.every((j) => j >= 0) ? { indices, computed: false } : undefined;
  }
  const t = input.samplingTemperature;
  if (!input.filter || t === undefined) return undefined;
  return { indices: keptFromFilter(logits, input.filter, t), computed: true };
}

function laneShift(
  lane: LaneConvention,
  input: DecompositionInput,
  token: number,
  logits: Logits | undefined,
): Term {
  if (lane.renormalized === false) return ZERO;
  if (input.filter && !isFiltering(input.filter) && !input.kept?.(token)) return ZERO;
  if (lane.renormalized === undefined || lane.temperature === undefined || !logits) return UNKNOWN;
  const kept = keptIndices(input, token, logits);
  if (!kept || kept.indices.length === 0) return UNKNOWN;
  const theta = effective(lane.temperature);
  const value = -(logSumExp(logits.z, theta, kept.indices) - logSumExp(logits.z, theta));
  // A complete top-k gives the exact mass, and the exact kept set when it is computed.
  return { value, quality: logits.isComplete ? 0 : 1, keptComputed: kept.computed };
}

function supportTerm(input: DecompositionInput, token: number, logits: Logits | undefined): Term {
  const a = laneShift(input.laneA, input, token, logits);
  const b = laneShift(input.laneB, input, token, logits);
  if (a.quality === 2 || b.quality === 2) return UNKNOWN;
  return {
    value: a.value - b.value,
    quality: Math.max(a.quality, b.quality) as 0 | 1,
    keptComputed: Boolean(a.keptComputed || b.keptComputed),
  };
}

function statusBits(temperature: Term, support: Term): number {
  let bits = TERM.compared;
  if (temperature.quality === 1) bits |= TERM.temperatureApprox;
  if (temperature.quality === 2) bits |= TERM.temperatureUnknown;
  if (support.quality === 1) bits |= TERM.supportApprox;
  if (support.quality === 2) bits |= TERM.supportUnknown;
  if (support.keptComputed) bits |= TERM.keptComputed;
  return bits;
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
  for (let i = 0; i < n; i++) {
    const a = input.a[i];
    const b = input.b[i];
    if ((input.mask && input.mask[i] !== 1) || !finite(a) || !finite(b)) continue;
    const top = input.topK?.[i];
    const id = input.tokenIds[i] ?? -1;
    const logits = top && tau !== undefined ? logitsOf(top, effective(tau), id) : undefined;
    const t = temperatureTerm(input, logits);
    const s = supportTerm(input, i, logits);
    status[i] = statusBits(t, s);
    temperature[i] = t.value;
    support[i] = s.value;
    const delta = a - b;
    if (t.quality < 2 && s.quality < 2) residual[i] = delta - t.value - s.value;
    acc.add(delta, t, s, residual[i] ?? Number.NaN);
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
      if (t.quality === 2) unknownTemperature++;
      if (s.quality === 2) unknownSupport++;
      if (t.quality === 2 || s.quality === 2) return;
      known++;
      if (t.quality === 1 || s.quality === 1) approximate++;
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
 * A row's verdict: `unchecked` when some compared token has an unknown term (nothing is judged
 * on part of a row), `none` when no token is outside the band, `spurious` when the residual
 * leaves at most a quarter of δ's out-of-band tokens out of band, `real` otherwise.
 */
export function verdictOf(
  compared: number,
  known: number,
  outsideDelta: number,
  outsideResidual: number,
): RowVerdict {
  if (compared === 0) return "none";
  if (known < compared) return "unchecked";
  if (outsideDelta === 0) return "none";
  return outsideResidual * 4 <= outsideDelta ? "spurious" : "real";
}

import { hashInts, seededRandom } from "../../src/core/random";

/**
 * The simulator's explicit distribution model (`--logit-model`): at every position a full logit
 * vector over a small candidate set (the scripted token and `CANDIDATES - 1` alternatives; every
 * other id has probability 0). Everything the simulator reports with the model on derives from
 * it by the definitions, so tests and the bisect lab can recompute any value:
 *
 * - sampled logprob: log softmax(z / T)[token] at the request's temperature (SGLang's default,
 *   docs/sglang.md), or renormalised over the kept set with `renormalizeKept`;
 * - prompt-scoring (rescore) logprob: log softmax(z)[token], T = 1 (what SGLang's
 *   `input_token_logprobs` report, whatever the request's temperature);
 * - kept set: the ids SGLang's top-k / top-p / min-p filter keeps from softmax(z / T).
 *
 * Pure and framework-free: the ids come in, nothing here knows the tokenizer.
 */

/** How many tokens carry probability at a position: enough that top-p / top-k truncation bites. */
export const CANDIDATES = 16;

/** A position's distribution: `ids[0]` is the scripted token, and always the most likely. */
export interface PositionDistribution {
  readonly ids: readonly number[];
  /** Logits z over `ids`, same order; z[0] = 0 and every other z < 0. */
  readonly logits: Float64Array;
}

/** Sampling filters as SGLang reads them: top_k -1 or ≥ 1, top_p in (0, 1], min_p in [0, 1]. */
export interface TruncationParams {
  readonly topP: number;
  readonly topK: number;
  readonly minP: number;
}

export const NO_TRUNCATION: TruncationParams = { topP: 1, topK: -1, minP: 0 };

/** Whether the filter can drop any candidate at all. */
export function isTruncating(params: TruncationParams): boolean {
  return params.topP < 1 || (params.topK >= 1 && params.topK < CANDIDATES) || params.minP > 0;
}

/**
 * The logits at one position. `difficulty` (mean −logprob of the token at T = 1, ~0.02 for a
 * special token to ~0.9 for a new word) sets how peaked it is: the gap to the j-th alternative
 * is a·(j + 1)·(0.5 + u_j) with a = (0.3 + u)/difficulty, u uniform from (seed, key, id). The
 * scripted token stays the argmax, so a request sampled with any top-p / top-k keeps it.
 */
export function positionDistribution(
  seed: number,
  key: number,
  id: number,
  difficulty: number,
  alternatives: readonly number[],
): PositionDistribution {
  const random = seededRandom(hashInts([seed, key, id, 0xd157]));
  const sharpness = (0.3 + random()) / Math.max(0.01, difficulty);
  const logits = new Float64Array(alternatives.length + 1);
  for (let j = 0; j < alternatives.length; j++) {
    logits[j + 1] = -sharpness * (j + 1) * (0.5 + random());
  }
  return { ids: [id, ...alternatives], logits };
}

/** log softmax(z / T); T below SGLang's greedy threshold reports T = 1 (greedy: unscaled). */
export function logSoftmax(logits: Float64Array, temperature: number): Float64Array {
  const t = temperature < 1e-6 ? 1 : temperature;
  let max = Number.NEGATIVE_INFINITY;
  for (const z of logits) max = Math.max(max, z / t);
  let sum = 0;
  for (const z of logits) sum += Math.exp(z / t - max);
  const lse = max + Math.log(sum);
  return logits.map((z) => z / t - lse);
}

/**
 * Indices (into the distribution) SGLang's sampler keeps, as
 * `top_k_top_p_min_p_sampling_from_probs_torch` does: sort descending, keep rank < top_k and
 * every token whose preceding cumulative mass is ≤ top_p, and (min_p) p ≥ min_p · p_max.
 * `logprobs` are at the sampling temperature. Greedy (T ≈ 0) keeps the argmax only.
 */
export function keptIndices(
  logprobs: Float64Array,
  params: TruncationParams,
  temperature: number,
): number[] {
  const order = [...logprobs.keys()].sort((a, b) => (logprobs[b] ?? 0) - (logprobs[a] ?? 0));
  if (temperature < 1e-6) return order.slice(0, 1);
  const pMax = Math.exp(logprobs[order[0] ?? 0] ?? 0);
  const kept: number[] = [];
  let before = 0;
  for (const [rank, index] of order.entries()) {
    const p = Math.exp(logprobs[index] ?? Number.NEGATIVE_INFINITY);
    const isInTopK = params.topK < 1 || rank < params.topK;
    if (isInTopK && before <= params.topP && p >= params.minP * pMax) kept.push(index);
    before += p;
  }
  return kept;
}

/** log Σ exp(logprobs[i]) over `indices`: the log of the kept mass. */
export function logMass(logprobs: Float64Array, indices: readonly number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const i of indices) max = Math.max(max, logprobs[i] ?? Number.NEGATIVE_INFINITY);
  if (max === Number.NEGATIVE_INFINITY) return max;
  let sum = 0;
  for (const i of indices) sum += Math.exp((logprobs[i] ?? Number.NEGATIVE_INFINITY) - max);
  return max + Math.log(sum);
}

/** A standard normal draw (Box–Muller) from one seeded stream. */
export function gaussianDraw(values: readonly number[]): number {
  const random = seededRandom(hashInts(values));
  const u = Math.max(1e-12, random());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * The σ multiplier of the batch-composition noise (`--batch-noise`): log2 of the number of
 * sequences in the `/generate` call, so a sequence scored alone gets none and one scored among
 * 8 gets 3σ. The draw is seeded by (seed, prefix, token, batch size): the same batch size gives
 * the same noise again.
 */
export function batchNoiseScale(batchSize: number): number {
  return Math.log2(Math.max(1, batchSize));
}

/** MoE routing shape reported with `return_routed_experts` (`--routed-experts L,E,K`). */
export interface RoutingShape {
  readonly layers: number;
  readonly experts: number;
  readonly topK: number;
}

/** The experts the router picks at one token, per layer: `topK` distinct ids in [0, experts). */
export function routedExpertsAt(
  seed: number,
  key: number,
  id: number,
  shape: RoutingShape,
): number[][] {
  return Array.from({ length: shape.layers }, (_, layer) => {
    const random = seededRandom(hashInts([seed, key, id, layer, 0xe4]));
    const picked: number[] = [];
    while (picked.length < Math.min(shape.topK, shape.experts)) {
      const expert = Math.floor(random() * shape.experts);
      if (!picked.includes(expert)) picked.push(expert);
    }
    return picked;
  });
}

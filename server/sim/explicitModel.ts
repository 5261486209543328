import type { Tokenizer } from "../../src/core/tokenizer/types";
import {
  CANDIDATES,
  isTruncating,
  keptIndices,
  logMass,
  logSoftmax,
  type PositionDistribution,
  positionDistribution,
  type TruncationParams,
} from "./distribution";
import {
  alternativeIds,
  difficulty,
  inputPerturber,
  type LogprobModel,
  type LogprobPerturbation,
  MIN_LOGPROB,
  prefixKeys,
  type ScoredToken,
} from "./logprobs";

/** What `--logit-model` and its companions change in how a request's logprobs are reported. */
export interface ExplicitKnobs {
  /** The request's top_p / top_k / min_p: the kept set is computed from them. */
  readonly truncation: TruncationParams;
  /** Sampled logprobs renormalised over the kept set (vLLM's processed logprobs), not SGLang's. */
  readonly renormalizeKept: boolean;
}

/** One position worked out once: the distribution and its log-softmax at T and at 1. */
interface Position {
  readonly dist: PositionDistribution;
  /** log softmax(z / T), T the request's temperature. */
  readonly atT: Float64Array;
  /** log softmax(z), what prompt scoring reports. */
  readonly atOne: Float64Array;
  /** Indices kept by the sampler; undefined when the filter keeps every candidate. */
  readonly kept: number[] | undefined;
}

export interface ExplicitModel extends LogprobModel {
  /** The distribution at `position` given that `id` is the token there (ids[0] = id). */
  distribution(position: number, id: number): PositionDistribution;
}

/** The distribution at one position of a context: the key is its prefix hash, as everywhere. */
export function distributionAt(
  tokenizer: Tokenizer,
  seed: number,
  key: number,
  id: number,
): PositionDistribution {
  const alternatives = alternativeIds(tokenizer, seed, key, id, CANDIDATES - 1);
  return positionDistribution(seed, key, id, difficulty(tokenizer, id), alternatives);
}

const floor = (lp: number) => Math.max(MIN_LOGPROB, lp);

/**
 * The `LogprobModel` of the explicit distribution (see distribution.ts): causal like the
 * heuristic one (keys are prefix hashes of `context`), so rescoring a finished trajectory
 * reproduces each position's distribution; sampled logprobs are at the request's temperature
 * (renormalised over the kept set with `renormalizeKept`), input-scored ones at T = 1 plus the
 * opt-in perturbations. Top-k lists keep SGLang's convention (temperature-scaled, before any
 * filtering) and list `k` entries, past the candidates at MIN_LOGPROB.
 */
export function createExplicitModel(
  tokenizer: Tokenizer,
  seed: number,
  temperature: number,
  context: readonly number[],
  perturbation: LogprobPerturbation,
  knobs: ExplicitKnobs,
): ExplicitModel {
  const keys = prefixKeys(context);
  const keyOf = (position: number) => keys[position] ?? position;
  const isGreedy = temperature < 1e-6;
  const isFiltering = isGreedy || isTruncating(knobs.truncation);
  const cache = new Map<number, Position>();
  const at = (position: number, id: number): Position => {
    const held = cache.get(position);
    if (held && held.dist.ids[0] === id) return held;
    const dist = distributionAt(tokenizer, seed, keyOf(position), id);
    const atT = logSoftmax(dist.logits, temperature);
    const kept = isFiltering ? keptIndices(atT, knobs.truncation, temperature) : undefined;
    const made = { dist, atT, atOne: logSoftmax(dist.logits, 1), kept };
    cache.set(position, made);
    return made;
  };
  const perturb = inputPerturber(seed, perturbation);
  /** The `k` most likely of the candidates, then (k > CANDIDATES) more ids at MIN_LOGPROB. */
  const listed = (position: number, lps: Float64Array, id: number, own: number, k: number) => {
    const p = at(position, id);
    const entries = p.dist.ids.map(
      (other, i): ScoredToken => [other === id ? own : floor(lps[i] ?? MIN_LOGPROB), other],
    );
    if (k > entries.length) {
      const more = alternativeIds(tokenizer, seed, keyOf(position), id, k - 1);
      for (const alt of more.slice(CANDIDATES - 1)) entries.push([MIN_LOGPROB, alt]);
    }
    return entries.sort((x, y) => y[0] - x[0]).slice(0, k);
  };
  const byIds = (p: Position, lps: Float64Array, id: number, own: number, ids: readonly number[]) =>
    ids.map((other): ScoredToken => {
      if (other === id) return [own, other];
      const i = p.dist.ids.indexOf(other);
      return [i < 0 ? MIN_LOGPROB : floor(lps[i] ?? MIN_LOGPROB), other];
    });
  return {
    distribution: (position, id) => at(position, id).dist,
    score(position, id) {
      const p = at(position, id);
      const lp = p.atT[0] ?? 0;
      if (!knobs.renormalizeKept || p.kept === undefined) return floor(lp);
      return Math.min(0, lp - logMass(p.atT, p.kept));
    },
    scoreInput: (position, id) =>
      perturb(at(position, id).atOne[0] ?? 0, position, keyOf(position), id),
    topK(position, id, _logprob, k) {
      if (k <= 0) return [];
      const atT = at(position, id).atT;
      return listed(position, atT, id, floor(atT[0] ?? 0), k);
    },
    topKInput(position, id, logprob, k) {
      if (k <= 0) return [];
      return listed(position, at(position, id).atOne, id, logprob, k);
    },
    scoreIds(position, id, logprob, ids) {
      const p = at(position, id);
      return byIds(p, p.atT, id, logprob, ids);
    },
    scoreIdsInput(position, id, logprob, ids) {
      const p = at(position, id);
      return byIds(p, p.atOne, id, logprob, ids);
    },
    keptIds(position, id) {
      if (!knobs.renormalizeKept) return undefined;
      const p = at(position, id);
      return p.kept?.map((i) => p.dist.ids[i] ?? 0);
    },
  };
}

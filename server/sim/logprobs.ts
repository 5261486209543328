import { hashInts, seededRandom } from "../../src/core/random";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { batchNoiseScale, gaussianDraw } from "./distribution";

/** Below SGLang's greedy threshold a request samples with `top_k = 1`. */
const GREEDY_TEMPERATURE = 1e-6;
/** SGLang clamps to the dtype minimum instead of -inf; a float32-ish floor keeps JSON finite. */
export const MIN_LOGPROB = -40;

/** One `[logprob, tokenId]` pair; the response layer adds the text slot. */
export type ScoredToken = readonly [number, number];

export interface LogprobModel {
  /** log P(id at `position`), `position` being the index in prompt + output tokens. */
  score(position: number, id: number): number;
  /**
   * The logprob reported when the token is scored as input (`input_token_logprobs`): `score`,
   * plus the opt-in perturbations, so rescoring can disagree with sampling on purpose.
   */
  scoreInput(position: number, id: number): number;
  /** The `k` most likely tokens at `position`, the scored `id` among them, highest first. */
  topK(position: number, id: number, logprob: number, k: number): ScoredToken[];
  /** Logprobs of specific ids at `position` (`token_ids_logprob`). */
  scoreIds(position: number, id: number, logprob: number, ids: readonly number[]): ScoredToken[];
  /** `topK` for a prompt (input-scored) position; the heuristic model uses `topK`. */
  topKInput?(position: number, id: number, logprob: number, k: number): ScoredToken[];
  /** `scoreIds` for a prompt (input-scored) position. */
  scoreIdsInput?(
    position: number,
    id: number,
    logprob: number,
    ids: readonly number[],
  ): ScoredToken[];
  /** The ids the sampler kept at `position` (top-p / top-k / min-p), when it dropped any. */
  keptIds?(position: number, id: number): number[] | undefined;
}

const EASY_PIECE = /^[\s\p{P}]*$/u;

/**
 * How surprising a token usually is: special tokens and punctuation are near-certain, word
 * continuations likely, digits and new words much less so. Mean of -logprob at temperature 1.
 */
export function difficulty(tokenizer: Tokenizer, id: number): number {
  let known = difficultyCache.get(tokenizer);
  if (!known) {
    known = new Map();
    difficultyCache.set(tokenizer, known);
  }
  let value = known.get(id);
  if (value === undefined) {
    value = classify(tokenizer, id);
    known.set(id, value);
  }
  return value;
}

// A single-token decode costs tens of microseconds in transformers.js; ids repeat a lot.
const difficultyCache = new WeakMap<Tokenizer, Map<number, number>>();

function classify(tokenizer: Tokenizer, id: number): number {
  if (tokenizer.isAdded(id)) return 0.02;
  const piece = tokenizer.decode([id]);
  if (EASY_PIECE.test(piece)) return 0.12;
  if (/^\d+$/.test(piece.trim())) return 0.7;
  if (/^\S/.test(piece)) return 0.3;
  return 0.9;
}

/** Opt-in, deterministic disagreements between scoring and sampling (mismatch demos and tests). */
export interface LogprobPerturbation {
  /** Standard deviation of Gaussian noise added to every input-scored logprob (0: none). */
  readonly noise?: number;
  /** From this position on, input-scored logprobs are scaled by DRIFT_SCALE. */
  readonly driftAfterTokens?: number;
  /** σ of the batch-composition noise: log-odds noise of σ · log2(batchSize) (0: none). */
  readonly batchNoise?: number;
  /** Sequences in the `/generate` call this model scores for (1 when alone). */
  readonly batchSize?: number;
}

/** How much a drifted position's logprob is scaled: log p · 1.25, a sharper distribution. */
export const DRIFT_SCALE = 1.25;

/**
 * One key per position of `context`: an FNV-style hash of the ids before it, so a token's logprob
 * depends on its prefix only, as in a causal model. Scoring a trajectory in one call then gives
 * the very logprobs its turns were sampled with.
 */
export function prefixKeys(context: readonly number[]): Uint32Array {
  const keys = new Uint32Array(context.length + 1);
  let h = 0x811c9dc5;
  keys[0] = h;
  for (let k = 0; k < context.length; k++) {
    h ^= (context[k] ?? 0) >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
    h ^= h >>> 13;
    keys[k + 1] = h;
  }
  return keys;
}

/**
 * `logprob` moved by `shift` in log-odds, log(p / (1 - p)): symmetric for every p, where adding
 * the shift to the logprob and clamping at 0 only ever lowered a near-certain token's logprob.
 */
export function withLogOddsNoise(logprob: number, shift: number): number {
  // log(1 - p) without cancellation for p near 1; then log p' = -log(1 + e^(-logit')).
  const log1mP =
    logprob > -Math.LN2 ? Math.log(-Math.expm1(logprob)) : Math.log1p(-Math.exp(logprob));
  const logit = logprob - log1mP + shift;
  return logit > 0 ? -Math.log1p(Math.exp(-logit)) : logit - Math.log1p(Math.exp(logit));
}

/** A standard normal draw from one seeded stream (Box–Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(1e-12, random());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * The opt-in perturbations of an input-scored logprob, in order: drift (× DRIFT_SCALE from
 * `driftAfterTokens` on), log-odds noise of σ `noise`, then batch-composition noise of
 * σ `batchNoise` · log2(batchSize); each draw seeded by (seed, prefix key, token). Clamped to
 * [MIN_LOGPROB, −1e-7] like every reported logprob.
 */
export function inputPerturber(
  seed: number,
  perturbation: LogprobPerturbation,
): (value: number, position: number, key: number, id: number) => number {
  const noise = perturbation.noise ?? 0;
  const driftAfter = perturbation.driftAfterTokens;
  const batchSize = perturbation.batchSize ?? 1;
  const batchSigma = (perturbation.batchNoise ?? 0) * batchNoiseScale(batchSize);
  return (value, position, key, id) => {
    let v = value;
    if (driftAfter !== undefined && position >= driftAfter) v *= DRIFT_SCALE;
    if (noise > 0) {
      v = withLogOddsNoise(v, noise * gaussian(seededRandom(hashInts([seed, key, id, 0x5e]))));
    }
    if (batchSigma > 0) {
      v = withLogOddsNoise(v, batchSigma * gaussianDraw([seed, key, id, batchSize, 0xba7]));
    }
    return Math.max(MIN_LOGPROB, Math.min(-1e-7, v));
  };
}

/**
 * `count` distinct alternatives to `id` at the position keyed `key`, seeded by (seed, key, id).
 * They come from the regular vocabulary: below the first EOS where the added tokens sit at the
 * end (Qwen, Llama, gpt-oss), else the whole vocabulary minus added tokens (DeepSeek's EOS is
 * id 1, Gemma's 106: bounding by them left too few ids and the draw never ended).
 */
export function alternativeIds(
  tokenizer: Tokenizer,
  seed: number,
  key: number,
  id: number,
  count: number,
): number[] {
  const firstEos = Math.min(...tokenizer.eosTokenIds, tokenizer.vocabSize);
  const regularVocab = firstEos > tokenizer.vocabSize / 2 ? firstEos : tokenizer.vocabSize;
  const random = seededRandom(hashInts([seed, key, id, 0xa17]));
  const picked = new Set<number>();
  while (picked.size < count) {
    const alt = Math.floor(random() * regularVocab);
    if (alt !== id && !tokenizer.isAdded(alt)) picked.add(alt);
  }
  return [...picked];
}

/**
 * A deterministic stand-in for a model's distribution: values depend only on (seed, key, id) and
 * temperature, so the same request replays the same logprobs. The key is the position, or with a
 * `context` (prompt + output ids) the hash of the ids before that position, which makes the
 * model causal: input-scoring a whole trajectory reproduces each turn's sampled logprobs. Greedy
 * requests look greedy: sampled tokens are near-certain and always rank first.
 */
export function createLogprobModel(
  tokenizer: Tokenizer,
  seed: number,
  temperature: number,
  context?: readonly number[],
  perturbation: LogprobPerturbation = {},
): LogprobModel {
  const keys = context ? prefixKeys(context) : undefined;
  const keyOf = (position: number) => (keys ? (keys[position] ?? position) : position);
  const isGreedy = temperature < GREEDY_TEMPERATURE;
  const scale = isGreedy ? 0.15 : Math.min(3, Math.max(0.1, temperature));
  const alternatives = (position: number, id: number, count: number) =>
    alternativeIds(tokenizer, seed, keyOf(position), id, count);

  function altLogprob(position: number, id: number, logprob: number, rank: number): number {
    const random = seededRandom(hashInts([seed, keyOf(position), id, rank, 0xb0b]));
    const rest = Math.max(1e-9, 1 - Math.exp(logprob));
    // Geometric shares of the leftover mass, jittered; they sum to less than `rest`.
    let p = rest * 0.45 * 0.5 ** rank * (0.6 + 0.4 * random());
    if (isGreedy) p = Math.min(p, Math.exp(logprob) * 0.9 ** (rank + 1));
    return Math.max(MIN_LOGPROB, Math.log(p));
  }

  function score(position: number, id: number): number {
    const u = seededRandom(hashInts([seed, keyOf(position), id]))();
    const value = -difficulty(tokenizer, id) * scale * -Math.log(1 - u);
    return Math.max(MIN_LOGPROB, Math.min(-1e-7, value));
  }

  const perturb = inputPerturber(seed, perturbation);
  return {
    score,
    scoreInput: (position, id) => perturb(score(position, id), position, keyOf(position), id),
    topK(position, id, logprob, k) {
      if (k <= 0) return [];
      const alts = alternatives(position, id, k - 1).map(
        (alt, rank): ScoredToken => [altLogprob(position, id, logprob, rank), alt],
      );
      const sampled: ScoredToken = [logprob, id];
      return [sampled, ...alts].sort((a, b) => b[0] - a[0]);
    },
    scoreIds(position, id, logprob, ids) {
      return ids.map((other, rank): ScoredToken => {
        if (other === id) return [logprob, other];
        return [altLogprob(position, other, logprob, rank + 3), other];
      });
    },
  };
}

import { hashInts, seededRandom } from "../../src/core/random";
import type { Tokenizer } from "../../src/core/tokenizer/types";

/** Below SGLang's greedy threshold a request samples with `top_k = 1`. */
const GREEDY_TEMPERATURE = 1e-6;
/** SGLang clamps to the dtype minimum instead of -inf; a float32-ish floor keeps JSON finite. */
const MIN_LOGPROB = -40;

/** One `[logprob, tokenId]` pair; the response layer adds the text slot. */
export type ScoredToken = readonly [number, number];

export interface LogprobModel {
  /** log P(id at `position`), `position` being the index in prompt + output tokens. */
  score(position: number, id: number): number;
  /** The `k` most likely tokens at `position`, the scored `id` among them, highest first. */
  topK(position: number, id: number, logprob: number, k: number): ScoredToken[];
  /** Logprobs of specific ids at `position` (`token_ids_logprob`). */
  scoreIds(position: number, id: number, logprob: number, ids: readonly number[]): ScoredToken[];
}

const EASY_PIECE = /^[\s\p{P}]*$/u;

/**
 * How surprising a token usually is: special tokens and punctuation are near-certain, word
 * continuations likely, digits and new words much less so. Mean of -logprob at temperature 1.
 */
function difficulty(tokenizer: Tokenizer, id: number): number {
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

/**
 * A deterministic stand-in for a model's distribution: values depend only on (seed, position, id)
 * and temperature, so the same request replays the same logprobs. Greedy requests look greedy:
 * sampled tokens are near-certain and always rank first.
 */
export function createLogprobModel(
  tokenizer: Tokenizer,
  seed: number,
  temperature: number,
): LogprobModel {
  const isGreedy = temperature < GREEDY_TEMPERATURE;
  const scale = isGreedy ? 0.15 : Math.min(3, Math.max(0.1, temperature));
  const regularVocab = Math.max(2, Math.min(...tokenizer.eosTokenIds, tokenizer.vocabSize));

  function alternatives(position: number, id: number, count: number): number[] {
    const random = seededRandom(hashInts([seed, position, id, 0xa17]));
    const picked = new Set<number>();
    while (picked.size < count) {
      const alt = Math.floor(random() * regularVocab);
      if (alt !== id) picked.add(alt);
    }
    return [...picked];
  }

  function altLogprob(position: number, id: number, logprob: number, rank: number): number {
    const random = seededRandom(hashInts([seed, position, id, rank, 0xb0b]));
    const rest = Math.max(1e-9, 1 - Math.exp(logprob));
    // Geometric shares of the leftover mass, jittered; they sum to less than `rest`.
    let p = rest * 0.45 * 0.5 ** rank * (0.6 + 0.4 * random());
    if (isGreedy) p = Math.min(p, Math.exp(logprob) * 0.9 ** (rank + 1));
    return Math.max(MIN_LOGPROB, Math.log(p));
  }

  return {
    score(position, id) {
      const u = seededRandom(hashInts([seed, position, id]))();
      const value = -difficulty(tokenizer, id) * scale * -Math.log(1 - u);
      return Math.max(MIN_LOGPROB, Math.min(-1e-7, value));
    },
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

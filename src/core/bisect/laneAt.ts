import { type Alternative, renormalizeOverKept } from "./keptSet";

/** A support counts as whole when the listed probabilities sum to at least this. */
export const WHOLE_SUPPORT = 1 - 1e-6;

/** One token's value in a knob's lane, or why it has none. */
export type LaneValue =
  | {
      readonly kind: "value";
      /** Natural log. */
      readonly logprob: number;
      /** False when the alternatives did not cover what the value needs (it is then a bound). */
      readonly isExact: boolean;
    }
  | { readonly kind: "outside" };

function logSumExp(values: readonly number[]): number {
  const max = Math.max(...values);
  if (!Number.isFinite(max)) return max;
  let sum = 0;
  for (const v of values) sum += Math.exp(v - max);
  return max + Math.log(sum);
}

/**
 * Alternatives at temperature T from those at T = 1: log softmax(z/T) = lp/T − logsumexp(lp/T)
 * over the listed ids (the normaliser of the T = 1 logprobs cancels). Exact when the listed ids
 * hold the whole support at T = 1 (their probabilities sum to WHOLE_SUPPORT or more).
 */
export function atTemperature(
  alternatives: readonly Alternative[],
  temperature: number,
): { readonly alternatives: Alternative[]; readonly isExact: boolean } {
  const mass = alternatives.reduce((s, a) => s + Math.exp(a.logprob), 0);
  const scaled = alternatives.map((a) => a.logprob / temperature);
  const norm = logSumExp(scaled);
  return {
    alternatives: alternatives.map((a, i) => ({
      tokenId: a.tokenId,
      logprob: Math.min(0, (scaled[i] ?? 0) - norm),
    })),
    isExact: mass >= WHOLE_SUPPORT,
  };
}

/**
 * The logprob of token `id` (its T = 1 score `logprob`, the position's T = 1 `alternatives`) under
 * a setting: scaled to `temperature` (1: as scored), then renormalised over the kept set of
 * `truncation` formed from that distribution, as SGLang's sampler forms it.
 */
export function laneAt(
  logprob: number,
  id: number,
  alternatives: readonly Alternative[],
  setting: {
    readonly temperature: number;
    readonly truncation?: { readonly top_p: number; readonly top_k: number };
  },
): LaneValue {
  let value = logprob;
  let alts: readonly Alternative[] = alternatives;
  let isExact = true;
  if (setting.temperature !== 1) {
    const listed = alternatives.some((a) => a.tokenId === id)
      ? alternatives
      : [...alternatives, { tokenId: id, logprob }];
    const scaled = atTemperature(listed, setting.temperature);
    alts = scaled.alternatives;
    value = alts.find((a) => a.tokenId === id)?.logprob ?? value;
    isExact = scaled.isExact;
  }
  if (setting.truncation === undefined) return { kind: "value", logprob: value, isExact };
  const kept = renormalizeOverKept(
    value,
    id,
    alts,
    setting.truncation.top_p,
    setting.truncation.top_k,
  );
  if (kept.kind === "outside") return kept;
  return { kind: "value", logprob: kept.logprob, isExact: isExact && kept.isExact };
}

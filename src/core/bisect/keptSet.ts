/** One alternative at a position: a token id and its logprob (natural log). */
export interface Alternative {
  readonly tokenId: number;
  readonly logprob: number;
}

/** A logprob renormalised over the kept set of top_p / top_k, or why it cannot be. */
export type Renormalized =
  | {
      readonly kind: "kept";
      /** log p − log(kept mass), natural log. */
      readonly logprob: number;
      /** False when the alternatives ran out before top_p or top_k closed the kept set. */
      readonly isExact: boolean;
    }
  /** The token is not in the kept set: sampling with these params could not have picked it. */
  | { readonly kind: "outside" };

/**
 * `logprob` of token `id` renormalised over the set SGLang's sampler keeps (sampler.py: sort
 * descending, keep rank < top_k, keep while the mass before a token is ≤ top_p), from the top-k
 * `alternatives` of that position. top_k ≤ 0 means no top-k cut. When the list ends before either
 * cut closes the set, the kept mass is a lower bound and the result is marked inexact.
 */
export function renormalizeOverKept(
  logprob: number,
  id: number,
  alternatives: readonly Alternative[],
  topP: number,
  topK: number,
): Renormalized {
  const sorted = [...alternatives].sort((a, b) => b.logprob - a.logprob);
  const isListed = sorted.some((a) => a.tokenId === id);
  const listed = sorted.length;
  // Not listed: below every listed alternative, after unlisted ones we know nothing of.
  if (!isListed) sorted.push({ tokenId: id, logprob });
  let before = 0;
  let kept = 0;
  let isClosed = false;
  let isIdKept = false;
  for (let rank = 0; rank < sorted.length; rank++) {
    const alt = sorted[rank] as Alternative;
    const p = Math.exp(alt.logprob);
    if ((topK > 0 && rank >= topK) || before > topP) {
      isClosed = true;
      break;
    }
    kept += p;
    before += p;
    if (alt.tokenId === id) isIdKept = true;
  }
  if (!isIdKept) return { kind: "outside" };
  // The listed alternatives end exactly where a cut falls: the set is closed all the same.
  const isCut = (topK > 0 && listed >= topK) || before > topP;
  return {
    kind: "kept",
    // The token alone can be the kept set: log p − log e^(log p) may round a hair above 0.
    logprob: Math.min(0, logprob - Math.log(kept)),
    isExact: isListed && (isClosed || isCut),
  };
}

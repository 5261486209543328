/** Pieces joined into one string with the character offset where each token starts. */
export interface TextIndex {
  readonly text: string;
  /** Lower-cased text, or the text itself when lower-casing would move offsets. */
  readonly folded: string;
  /** UTF-16 offset of each token's piece inside `text`; length = tokens + 1. */
  readonly tokenStart: Int32Array;
}

/** Builds the search index over display pieces (token-index to character-offset space). */
export function buildTextIndex(pieces: readonly string[]): TextIndex {
  const tokenStart = new Int32Array(pieces.length + 1);
  let offset = 0;
  pieces.forEach((piece, i) => {
    tokenStart[i] = offset;
    offset += piece.length;
  });
  tokenStart[pieces.length] = offset;
  const text = pieces.join("");
  const lower = text.toLowerCase();
  return { text, folded: lower.length === text.length ? lower : text, tokenStart };
}

/** Token holding a character offset (binary search, character-offset to token-index space). */
export function tokenAtChar(index: TextIndex, offset: number): number {
  let lo = 0;
  let hi = index.tokenStart.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((index.tokenStart[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Next token (after `from`, wrapping; from the first token when `from` is undefined) where a
 * case-insensitive text match starts; undefined if none.
 */
export function findText(
  index: TextIndex,
  query: string,
  from: number | undefined,
): number | undefined {
  if (query.length === 0) return undefined;
  const needle = index.folded === index.text ? query : query.toLowerCase();
  const start = from === undefined ? 0 : (index.tokenStart[from + 1] ?? 0);
  let at = index.folded.indexOf(needle, start);
  if (at === -1) at = index.folded.indexOf(needle);
  return at === -1 ? undefined : tokenAtChar(index, at);
}

/**
 * Next token index after `from` (wrapping; from the first token when `from` is undefined) whose
 * value satisfies `test`; undefined if none.
 */
function nextMatching(count: number, from: number | undefined, test: (i: number) => boolean) {
  const before = from ?? -1;
  for (let step = 1; step <= count; step++) {
    const i = (((before + step) % count) + count) % count;
    if (test(i)) return i;
  }
  return undefined;
}

/** Next token (after `from`, wrapping) with this token id (token-index space). */
export function findTokenId(
  tokenIds: Int32Array,
  id: number,
  from: number | undefined,
): number | undefined {
  return nextMatching(tokenIds.length, from, (i) => tokenIds[i] === id);
}

/** Next trained token (mask 1, after `from`, wrapping) whose recorded logprob is below `threshold`. */
export function findLowConfidence(
  logprobs: Float64Array,
  lossMask: Uint8Array,
  threshold: number,
  from: number | undefined,
): number | undefined {
  // NaN (not recorded) compares false, so unrecorded tokens never count as low-confidence.
  return nextMatching(
    logprobs.length,
    from,
    (i) => lossMask[i] === 1 && (logprobs[i] ?? 0) < threshold,
  );
}

/**
 * Next token (after `from`, wrapping) whose mismatch |δ| is above `threshold` (`delta` per token,
 * NaN where the two lanes were not compared, so those never count).
 */
export function findMismatchAbove(
  delta: Float64Array,
  threshold: number,
  from: number | undefined,
): number | undefined {
  return nextMatching(delta.length, from, (i) => Math.abs(delta[i] ?? Number.NaN) > threshold);
}

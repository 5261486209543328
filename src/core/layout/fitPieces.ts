/**
 * Display pieces for `tokenIds` (token-index space) from pieces computed for an earlier version of
 * the same sequence (`knownIds`): reused where the ids still agree, `#<id>` placeholders after.
 * A growing live trajectory then keeps its text while the pieces of new tokens are computed.
 */
export function fitPieces(
  tokenIds: ArrayLike<number>,
  knownIds: ArrayLike<number>,
  knownPieces: readonly string[],
): string[] {
  const out: string[] = new Array(tokenIds.length);
  let agree = true;
  for (let t = 0; t < tokenIds.length; t++) {
    const id = tokenIds[t] ?? 0;
    agree = agree && t < knownIds.length && knownIds[t] === id && t < knownPieces.length;
    // The last known piece may have held back bytes that the next token completes: redo it.
    const isSafe = agree && t < knownIds.length - 1;
    out[t] = isSafe ? (knownPieces[t] ?? `#${id}`) : `#${id}`;
  }
  return out;
}

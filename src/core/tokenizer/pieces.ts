import { utf8CharLength, utf8CodePoint } from "./utf8";

/** The bytes one token id stands for (`Tokenizer.tokenBytes`). */
export type TokenBytesOf = (id: number) => Uint8Array;

/**
 * Shown for a token whose bytes only begin (or continue) a character that a later token completes.
 * U+22EF (midline ellipsis) rather than "…", which is itself a common token.
 */
export const CONTINUATION_MARKER = "\u22EF";

/**
 * Cumulative byte offsets of `ids`: `offsets[i]` is where token i starts in the concatenation of
 * every token's bytes, `offsets[ids.length]` the total byte length. Token index -> byte offset.
 */
export function byteOffsets(
  ids: ArrayLike<number>,
  tokenBytes: TokenBytesOf,
): Uint32Array<ArrayBuffer> {
  const offsets = new Uint32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) {
    offsets[i + 1] = (offsets[i] ?? 0) + tokenBytes(ids[i] ?? 0).length;
  }
  return offsets;
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, "0");
}

/**
 * One display string per token index, byte-correct across token boundaries:
 * - every well-formed UTF-8 character is shown whole, in the token holding its LAST byte (where
 *   the text becomes readable when streaming);
 * - a token holding only leading/middle bytes of a character completed later shows
 *   `CONTINUATION_MARKER` in its place (so `😀` split F0 9F | 98 80 shows as `⋯`, `😀`);
 * - bytes that never form a character (a lone continuation byte, a sequence cut off by the end of
 *   `ids` or by an unrelated byte) show as hex in angle brackets, `<F0 9F>`, one group per token,
 *   never as U+FFFD.
 * Whitespace and control characters are returned as-is; making them visible is the view's job.
 */
export function displayPieces(ids: ArrayLike<number>, tokenBytes: TokenBytesOf): string[] {
  const offsets = byteOffsets(ids, tokenBytes);
  const total = offsets[ids.length] ?? 0;
  const all = new Uint8Array(total);
  for (let i = 0; i < ids.length; i++) all.set(tokenBytes(ids[i] ?? 0), offsets[i]);

  const out = Array.from({ length: ids.length }, () => "");
  let token = 0;
  // Byte positions only move forward, so one cursor finds the token of each byte (skipping empties).
  const tokenOf = (pos: number) => {
    while ((offsets[token + 1] ?? total) <= pos) token++;
    return token;
  };
  let hexToken = -1;
  let hexBytes: string[] = [];
  const flushHex = () => {
    if (hexBytes.length > 0) out[hexToken] += `<${hexBytes.join(" ")}>`;
    hexBytes = [];
    hexToken = -1;
  };

  let pos = 0;
  while (pos < total) {
    const length = utf8CharLength(all, pos);
    if (length > 0) {
      flushHex();
      const first = tokenOf(pos);
      const last = tokenOf(pos + length - 1);
      for (let t = first; t < last; t++) {
        if ((offsets[t + 1] ?? 0) > (offsets[t] ?? 0)) out[t] += CONTINUATION_MARKER;
      }
      out[last] += String.fromCodePoint(utf8CodePoint(all, pos, length));
      pos += length;
      continue;
    }
    for (const end = pos - length; pos < end; pos++) {
      const t = tokenOf(pos);
      if (t !== hexToken) flushHex();
      hexToken = t;
      hexBytes.push(hex(all[pos] ?? 0));
    }
  }
  flushHex();
  return out;
}

/**
 * The display string of each id on its own, context-free (a top-k alternative has no neighbours):
 * a token holding part of a character shows its bytes as hex (`<E4 BD>`), like `displayPieces`
 * of that one id. `null` for an id the tokenizer does not know (`tokenBytes` throws).
 */
export function pieceOfEachId(ids: ArrayLike<number>, tokenBytes: TokenBytesOf): (string | null)[] {
  return Array.from(ids, (id) => {
    let bytes: Uint8Array;
    try {
      bytes = tokenBytes(id);
    } catch {
      return null;
    }
    return displayPieces([id], () => bytes)[0] ?? "";
  });
}

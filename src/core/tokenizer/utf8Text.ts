import { utf8CharLength, utf8CodePoint } from "./utf8";

/**
 * Text of UTF-8 `bytes[from, to)` (byte offsets); each maximal ill-formed subpart becomes one
 * U+FFFD, as TextDecoder does (core has no TextDecoder).
 */
export function utf8Decode(bytes: Uint8Array, from = 0, to = bytes.length): string {
  const parts: string[] = [];
  let chunk: number[] = [];
  let pos = from;
  // One bounded view for the whole run: a character must not borrow bytes past `to`.
  const view = bytes.subarray(0, to);
  while (pos < to) {
    const length = utf8CharLength(view, pos);
    if (length > 0) {
      chunk.push(utf8CodePoint(bytes, pos, length));
      pos += length;
    } else {
      chunk.push(0xfffd);
      pos -= length;
    }
    if (chunk.length >= 4096) {
      parts.push(String.fromCodePoint(...chunk));
      chunk = [];
    }
  }
  parts.push(String.fromCodePoint(...chunk));
  return parts.join("");
}

/** `text` escaped for a one-line display: JSON string escapes without the surrounding quotes. */
export function escapeText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

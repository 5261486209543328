import { utf8CharLength, utf8CodePoint } from "./utf8";
import { utf8Decode } from "./utf8Text";

// Per code point: 0 not yet asked, 1 safe, 2 not safe (one byte each, filled on first use).
let nfcSafe: Uint8Array | undefined;

/**
 * A character NFC can never change, whatever surrounds it: unchanged on its own, not a combining
 * mark and not a Hangul jamo (the only non-mark characters that compose with a neighbour).
 */
function isNfcSafe(cp: number): boolean {
  nfcSafe ??= new Uint8Array(0x110000);
  let known = nfcSafe[cp] ?? 0;
  if (known === 0) {
    const ch = String.fromCodePoint(cp);
    const safe =
      ch.normalize("NFC") === ch && !/\p{M}/u.test(ch) && !(cp >= 0x1100 && cp <= 0x11ff);
    known = safe ? 1 : 2;
    nfcSafe[cp] = known;
  }
  return known === 1;
}

/** NFC leaves the well-formed UTF-8 bytes [from, to) unchanged (decoded and normalized). */
function chunkStable(buf: Uint8Array, from: number, to: number): boolean {
  const text = utf8Decode(buf, from, to);
  return text.normalize("NFC") === text;
}

/**
 * True when NFC leaves the well-formed UTF-8 bytes [from, to) unchanged. A character NFC never
 * changes (`isNfcSafe`: not a mark, not a jamo, unchanged alone) starts a segment NFC treats on
 * its own (a normalization boundary: nothing before it composes or reorders with it or past it),
 * so only the segments holding another character are decoded and normalized: from the last safe
 * character before it (which it may compose with) to the next safe one. False for ill-formed
 * bytes (the scanner declines them anyway).
 */
export function isNfcStable(buf: Uint8Array, from: number, to: number): boolean {
  // One bounded view per run, not one per character (a character must not borrow bytes past `to`).
  let view: Uint8Array | undefined;
  // Start of the last safe character (or `from`), and of the segment being gathered (-1: none).
  let starter = from;
  let segment = -1;
  for (let p = from; p < to; ) {
    if ((buf[p] ?? 0) < 0x80) {
      if (segment >= 0) {
        if (!chunkStable(buf, segment, p)) return false;
        segment = -1;
      }
      // ASCII is safe: the last ASCII byte of the run is the starter.
      while (p + 1 < to && (buf[p + 1] ?? 0) < 0x80) p++;
      starter = p++;
      continue;
    }
    view ??= buf.subarray(0, to);
    const length = utf8CharLength(view, p);
    if (length < 0) return false;
    if (isNfcSafe(utf8CodePoint(buf, p, length))) {
      if (segment >= 0) {
        if (!chunkStable(buf, segment, p)) return false;
        segment = -1;
      }
      starter = p;
    } else if (segment < 0) {
      segment = starter;
    }
    p += length;
  }
  return segment < 0 || chunkStable(buf, segment, to);
}

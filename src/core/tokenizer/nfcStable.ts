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

/**
 * True when NFC leaves the well-formed UTF-8 bytes [from, to) unchanged: checked per character
 * (cached) while every character is one NFC never changes, else on the whole run's text (marks,
 * emoji variation selectors: NFC leaves most such text alone, and the run is the unit the
 * normalizer sees). False for ill-formed bytes (the scanner declines them anyway).
 */
export function isNfcStable(buf: Uint8Array, from: number, to: number): boolean {
  // One bounded view per run, not one per character (a character must not borrow bytes past `to`).
  let view: Uint8Array | undefined;
  let allSafe = true;
  for (let p = from; p < to; ) {
    if ((buf[p] ?? 0) < 0x80) {
      p++;
      continue;
    }
    view ??= buf.subarray(0, to);
    const length = utf8CharLength(view, p);
    if (length < 0) return false;
    if (allSafe && !isNfcSafe(utf8CodePoint(buf, p, length))) allSafe = false;
    p += length;
  }
  if (allSafe) return true;
  const text = utf8Decode(buf, from, to);
  return text.normalize("NFC") === text;
}

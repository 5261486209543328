// Core has no TextEncoder/TextDecoder (ES libs only), and the piece display needs to know exactly
// where each character's bytes start and end, which TextDecoder cannot tell anyway.

/** UTF-8 bytes of `text`; a lone surrogate becomes EF BF BD (U+FFFD), as TextEncoder does. */
export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    let cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
      out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else {
      out.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
    }
  }
  return Uint8Array.from(out);
}

/**
 * Length in bytes of the well-formed UTF-8 character starting at `bytes[at]`, or, when it is not
 * well-formed, `-n` where n >= 1 is the length of its maximal ill-formed subpart (Unicode 3.9, the
 * same unit TextDecoder replaces with one U+FFFD). Byte offsets, into `bytes`.
 */
export function utf8CharLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] ?? 0;
  if (lead < 0x80) return 1;
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) need = 1;
  else if (lead >= 0xe0 && lead <= 0xef) {
    need = 2;
    if (lead === 0xe0) lo = 0xa0;
    if (lead === 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    need = 3;
    if (lead === 0xf0) lo = 0x90;
    if (lead === 0xf4) hi = 0x8f;
  } else return -1;
  for (let k = 1; k <= need; k++) {
    const b = bytes[at + k];
    if (b === undefined || b < lo || b > hi) return -k;
    lo = 0x80;
    hi = 0xbf;
  }
  return need + 1;
}

/** The code point of the well-formed `length`-byte character at `bytes[at]` (byte offsets). */
export function utf8CodePoint(bytes: Uint8Array, at: number, length: number): number {
  const lead = bytes[at] ?? 0;
  if (length === 1) return lead;
  let cp = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) cp = (cp << 6) | ((bytes[at + k] ?? 0) & 0x3f);
  return cp;
}

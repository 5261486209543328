/**
 * A hand-written scanner equivalent to the split regex Qwen2/Qwen3 (digit runs of 1) and
 * Llama-3 (digit runs of up to 3) share:
 *   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,R}| ?[^\s\p{L}\p{N}]+[\r\n]*|
 *   \s*[\r\n]+|\s+(?!\S)|\s+
 * It walks UTF-8 bytes directly, so the round-trip fast path never builds strings. Alternatives
 * are tried in the regex's order (alternation is ordered, not longest-match). `\s` is Unicode
 * White_Space, as tokenizers (Rust) and @huggingface/tokenizers use it.
 */

/** Character classes the regex distinguishes. */
const OTHER = 0;
const LETTER = 1;
const NUMBER = 2;
const SPACE = 3;
const NEWLINE = 4; // \r or \n (also whitespace)

/** Not a class: a byte of a multi-byte character (only in ASCII_CLASS, indexed by byte). */
const WIDE = 5;

const ASCII_CLASS = new Uint8Array(256).fill(WIDE);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] =
    c === 10 || c === 13
      ? NEWLINE
      : /\p{White_Space}/u.test(ch)
        ? SPACE
        : /\p{L}/u.test(ch)
          ? LETTER
          : /\p{N}/u.test(ch)
            ? NUMBER
            : OTHER;
}
// Classes of the other code points, asked on first use: class + 1 per code point, 0 not yet asked.
let wideClass: Uint8Array | undefined;

function classOf(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp] ?? OTHER;
  wideClass ??= new Uint8Array(0x110000);
  const known = wideClass[cp] ?? 0;
  if (known > 0) return known - 1;
  const ch = String.fromCodePoint(cp);
  const c = /\p{White_Space}/u.test(ch)
    ? SPACE
    : /\p{L}/u.test(ch)
      ? LETTER
      : /\p{N}/u.test(ch)
        ? NUMBER
        : OTHER;
  wideClass[cp] = c + 1;
  return c;
}

/** Marks a scan the fast path cannot vouch for (ill-formed UTF-8, U+017F after an apostrophe). */
export const SCAN_FAILED = -1;

/**
 * Pre-token scanner over `bytes[from, to)` (one run of text between added tokens; byte offsets).
 * `next(p)` returns where the pre-token starting at byte `p` ends, or SCAN_FAILED.
 */
export class PreTokenScanner {
  private cp = 0;
  private len = 0;

  /**
   * `asciiCase`: the contractions match ASCII letters only, as @huggingface/tokenizers compiles
   * `(?i:'s|...)`; otherwise U+017F (which Unicode case-folds to `s`) after an apostrophe makes
   * the scan fail, so the caller asks the real encoder.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly to: number,
    private readonly digitRun: number,
    private readonly asciiCase = false,
  ) {}

  /** Decodes the character at `p` into cp/len; false when ill-formed or past the end. */
  private read(p: number): boolean {
    const b = this.bytes;
    if (p >= this.to) return false;
    const lead = b[p] ?? 0;
    if (lead < 0x80) {
      this.cp = lead;
      this.len = 1;
      return true;
    }
    let need: number;
    let cp: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      need = 1;
      cp = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      cp = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      cp = lead & 0x07;
    } else return false;
    if (p + need >= this.to) return false;
    for (let k = 1; k <= need; k++) {
      const c = b[p + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, surrogates and > U+10FFFF are ill-formed (they decode to U+FFFD).
    if ((need === 2 && cp < 0x800) || (need === 3 && cp < 0x10000) || cp > 0x10ffff) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false;
    this.cp = cp;
    this.len = need + 1;
    return true;
  }

  /** Class of the character at `p`, or -1 at the end; sets cp/len. Throws nothing. */
  private cls(p: number): number {
    if (p >= this.to) return -1;
    const b = this.bytes[p] ?? 0;
    if (b < 0x80) {
      this.cp = b;
      this.len = 1;
      return ASCII_CLASS[b] ?? OTHER;
    }
    return this.read(p) ? classOf(this.cp) : -1;
  }

  private letterRun(p: number): number {
    const { bytes, to } = this;
    let q = p;
    for (;;) {
      // ASCII letters without a call per byte.
      while (q < to && ASCII_CLASS[bytes[q] ?? 0] === LETTER) q++;
      if (q >= to || (bytes[q] ?? 0) < 0x80 || this.cls(q) !== LETTER) return q;
      q += this.len;
    }
  }

  private lowerAscii(p: number): number {
    if (!this.read(p)) return -1;
    return this.cp < 128 ? this.cp | 0x20 : this.cp === 0x17f && !this.asciiCase ? -2 : -1;
  }

  /** End of the pre-token starting at `p` (byte offset), or SCAN_FAILED. */
  next(p: number): number {
    const c = this.cls(p);
    if (c < 0) return SCAN_FAILED;
    const cp = this.cp;
    const len = this.len;
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if (cp === 0x27) {
      const a = this.lowerAscii(p + 1);
      if (a === -2) return SCAN_FAILED; // U+017F case-folds to `s`; leave it to the real encoder
      if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return p + 2;
      const b = this.lowerAscii(p + 2); // U+017F here cannot complete 're, 've or 'll
      if ((a === 0x72 || a === 0x76) && b === 0x65) return p + 3;
      if (a === 0x6c && b === 0x6c) return p + 3;
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if (c === LETTER) return this.letterRun(p);
    if (c !== NEWLINE && c !== NUMBER && this.cls(p + len) === LETTER) {
      return this.letterRun(p + len);
    }
    // \p{N}{1,R}
    if (c === NUMBER) {
      let q = p + len;
      for (let k = 1; k < this.digitRun && this.cls(q) === NUMBER; k++) q += this.len;
      return q;
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
    let start = -1;
    if (c === OTHER) start = p;
    else if (cp === 0x20 && this.cls(p + 1) === OTHER) start = p + 1;
    if (start >= 0) {
      let q = start;
      while (this.cls(q) === OTHER) q += this.len;
      while (this.cls(q) === NEWLINE) q += this.len;
      return q;
    }
    // Whitespace: \s*[\r\n]+ | \s+(?!\S) | \s+
    let q = p;
    let lastNewlineEnd = -1;
    let lastStart = p;
    for (;;) {
      const k = this.cls(q);
      if (k !== SPACE && k !== NEWLINE) break;
      if (k === NEWLINE) lastNewlineEnd = q + this.len;
      lastStart = q;
      q += this.len;
    }
    if (lastNewlineEnd >= 0) return lastNewlineEnd;
    if (q >= this.to || lastStart === p) return q;
    return lastStart;
  }
}

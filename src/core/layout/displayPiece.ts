// Display rules shared by the layout (cell counting) and the view (glyphs), so both agree on widths.

const SPECIAL_TAGS = /^<\/?(tool_call|tool_response|think)>$/;
const PIPE_TOKEN = /^<\|[^\s|]+\|>$/;

/** True for pieces shown as chips: `<|im_end|>`-style control tokens and Qwen's tool/think tags. */
export function isSpecialPiece(piece: string): boolean {
  return PIPE_TOKEN.test(piece) || SPECIAL_TAGS.test(piece);
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6)
  );
}

/**
 * Characters that change how text around them is drawn, or draw nothing: bidi embeddings,
 * overrides and isolates (a U+202E can make `txt.exe` read as `exe.txt`), marks, zero-width
 * spaces and joiners, BOM, soft hyphen, invisible operators. The view shows them, never obeys them.
 * Inclusive [lo, hi] pairs, sorted and disjoint.
 */
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
];

/** True when `code` lies in one of the ranges above. */
function isInvisible(code: number): boolean {
  // An index loop: `some` with a destructuring callback allocated on every non-ASCII character,
  // about a tenth of what the view allocated while scrolling.
  for (let i = 0; i < INVISIBLE_RANGES.length; i++) {
    const range = INVISIBLE_RANGES[i];
    if (!range || code < range[0]) return false;
    if (code <= range[1]) return true;
  }
  return false;
}

/** The visible stand-in for an invisible or bidi control character, e.g. `⟨U+202E⟩`; else undefined. */
export function invisibleEscape(code: number): string | undefined {
  // Most text is below the first range; this is on the per-character hot path of layout and view.
  if (code < 0x00ad) return undefined;
  if (!isInvisible(code)) return undefined;
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** Width in monospace cells of one UTF-16 code unit: astral pairs count 2 (on the high half). */
export function unitCells(code: number): number {
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  const shown = invisibleEscape(code);
  if (shown !== undefined) return shown.length;
  if (code >= 0xd800 && code <= 0xdbff) return 2;
  return isWide(code) ? 2 : 1;
}

/** Cells taken by `piece` between UTF-16 offsets [start, end). */
export function cellsOf(piece: string, start: number, end: number): number {
  let cells = 0;
  for (let i = start; i < end; i++) cells += unitCells(piece.charCodeAt(i));
  return cells;
}

/**
 * True when every character is shown as itself: printable ASCII (spaces too, unless whitespace is
 * made visible). The common case, checked without building a new string.
 */
function isPlainPrintable(fragment: string, showWhitespace: boolean): boolean {
  const lowest = showWhitespace ? 0x21 : 0x20;
  for (let i = 0; i < fragment.length; i++) {
    const code = fragment.charCodeAt(i);
    if (code < lowest || code > 0x7e) return false;
  }
  return true;
}

/**
 * Visible glyphs for a piece fragment: `·` `→` `↵` for whitespace when asked, control pictures and
 * `⟨U+XXXX⟩` escapes for bidi/zero-width characters always (one cell per glyph, as `unitCells` counts).
 */
export function visibleText(fragment: string, showWhitespace: boolean): string {
  if (isPlainPrintable(fragment, showWhitespace)) return fragment;
  let out = "";
  for (const ch of fragment) {
    const code = ch.charCodeAt(0);
    if (ch === "\n") out += showWhitespace ? "↵" : " ";
    else if (ch === " ") out += showWhitespace ? "·" : " ";
    else if (ch === "\t") out += showWhitespace ? "→" : " ";
    else if (code < 0x20 || code === 0x7f)
      out += String.fromCharCode(code === 0x7f ? 0x2421 : 0x2400 + code);
    else out += invisibleEscape(code) ?? ch;
  }
  return out;
}

/** `text` with only its bidi/zero-width characters made visible (`⟨U+202E⟩`); for labels and cards. */
export function revealInvisible(text: string): string {
  let out = "";
  for (const ch of text) out += invisibleEscape(ch.charCodeAt(0)) ?? ch;
  return out;
}

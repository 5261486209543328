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

/** Width in monospace cells of one UTF-16 code unit: astral pairs count 2 (on the high half). */
export function unitCells(code: number): number {
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  if (code >= 0xd800 && code <= 0xdbff) return 2;
  return isWide(code) ? 2 : 1;
}

/** Cells taken by `piece` between UTF-16 offsets [start, end). */
export function cellsOf(piece: string, start: number, end: number): number {
  let cells = 0;
  for (let i = start; i < end; i++) cells += unitCells(piece.charCodeAt(i));
  return cells;
}

/** Visible glyphs for a piece fragment: `·` `→` `↵` for whitespace when asked, control pictures always. */
export function visibleText(fragment: string, showWhitespace: boolean): string {
  let out = "";
  for (const ch of fragment) {
    const code = ch.charCodeAt(0);
    if (ch === "\n") out += showWhitespace ? "↵" : " ";
    else if (ch === " ") out += showWhitespace ? "·" : " ";
    else if (ch === "\t") out += showWhitespace ? "→" : " ";
    else if (code < 0x20 || code === 0x7f)
      out += String.fromCharCode(code === 0x7f ? 0x2421 : 0x2400 + code);
    else out += ch;
  }
  return out;
}

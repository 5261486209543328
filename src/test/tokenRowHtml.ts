import {
  forEachTokenCell,
  type TokenClasses,
  type TokenRowInput,
} from "../features/trajectory-view/tokenCells";

/** Short class names for the token-view tests, so expectations read as `tok model special`. */
export const CLASSES: TokenClasses = {
  tok: "tok",
  prompt: "prompt",
  model: "model",
  tool: "tool",
  odd: "odd",
  special: "special",
  dim: "dim",
  notRecorded: "nr",
  failedCall: "fc",
  selected: "sel",
  cut: "cut",
  clipped: "clip",
  masked: "mask",
  turnRemoved: "tr",
  turnInserted: "ti",
};

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

const NEEDS_ESCAPE = /[&<>]/;

function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[&<>]/g, (ch) => ESCAPES[ch] ?? ch);
}

/**
 * The token spans of one row as HTML, pieces escaped: the plain statement of what a row is, which
 * the in-place DOM patcher (tokenRowDom.ts) is property-tested against. Test-only: the view
 * patches recycled spans and never builds HTML.
 */
export function tokenRowHtml(input: TokenRowInput, classes: TokenClasses): string {
  let html = "";
  forEachTokenCell(input, classes, (token, className, style, text, isSelected) => {
    const styleAttr = style === "" ? "" : ` style="${style}"`;
    html += `<span data-t="${token}" class="${className}"${styleAttr} role="option"${isSelected ? ' aria-selected="true" tabindex="0"' : ""}>${escapeText(text)}</span>`;
  });
  return html;
}

import { isSpecialPiece, visibleText } from "../../core/layout/displayPiece";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import type { TokenLayout } from "../../core/layout/tokenRows";
import type { SegmentKind } from "../../core/trajectory/types";
import { heatColor } from "./heatColor";

/** CSS-module class names the token spans use (passed in so this stays testable without CSS). */
export type TokenClasses = Readonly<
  Record<
    SegmentKind | "tok" | "odd" | "special" | "dim" | "notRecorded" | "selected" | "cut",
    string
  >
>;

export interface TokenRowInput {
  readonly row: number;
  readonly layout: TokenLayout;
  readonly pieces: readonly string[];
  readonly flat: FlatTrajectory;
  readonly kind: SegmentKind;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  /** The selected token when it is on this row, else -1. */
  readonly selected: number;
  /** The token where the episode was cut when it is on this row, else -1. */
  readonly cutToken: number;
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

const NEEDS_ESCAPE = /[&<>]/;

function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[&<>]/g, (ch) => ESCAPES[ch] ?? ch);
}

/**
 * The token spans of one row as HTML. Scrolling a 131k-token view mounts ~2,000 spans a frame;
 * one innerHTML per row costs a fraction of creating them element by element through React.
 * Pieces are data, so their text is escaped; every attribute value is generated here.
 */
export function tokenRowHtml(input: TokenRowInput, classes: TokenClasses): string {
  const { row, layout, pieces, flat, kind, showWhitespace, isHeatmap, selected, cutToken } = input;
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  let html = "";
  for (let f = from; f < to; f++) {
    const token = layout.fragToken[f] ?? 0;
    const piece = pieces[token] ?? "";
    const fragment = piece.slice(layout.fragStart[f], layout.fragEnd[f]);
    let className = `${classes.tok} ${classes[kind]}`;
    if (token % 2 === 1) className += ` ${classes.odd}`;
    if (isSpecialPiece(piece)) className += ` ${classes.special}`;
    let style = "";
    if (isHeatmap) {
      const lp = flat.logprobs[token] ?? Number.NaN;
      if (flat.lossMask[token] !== 1) className += ` ${classes.dim}`;
      else if (Number.isNaN(lp)) className += ` ${classes.notRecorded}`;
      else {
        const heat = heatColor(Math.exp(lp));
        style = ` style="background: ${heat.background}; color: ${heat.color}"`;
      }
    }
    const isSelected = token === selected;
    if (isSelected) className += ` ${classes.selected}`;
    if (token === cutToken && f === to - 1) className += ` ${classes.cut}`;
    const text = fragment.length === 0 ? "∅" : escapeText(visibleText(fragment, showWhitespace));
    html += `<span data-t="${token}" class="${className}"${style} role="option"${isSelected ? ' aria-selected="true" tabindex="0"' : ""}>${text}</span>`;
  }
  return html;
}

/**
 * The row's text in a single box of its segment's colour, for frames where the list moves faster
 * than a screen per frame: ~50 elements a frame instead of ~2,000, and nothing a reader could
 * follow at that speed is lost. Token boxes come back as soon as scrolling slows.
 */
export function tokenRowPlainHtml(
  input: Pick<TokenRowInput, "row" | "layout" | "pieces" | "kind" | "showWhitespace">,
  classes: Pick<TokenClasses, "tok" | SegmentKind>,
): string {
  const { row, layout, pieces, kind, showWhitespace } = input;
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  let text = "";
  for (let f = from; f < to; f++) {
    const piece = pieces[layout.fragToken[f] ?? 0] ?? "";
    const fragment = piece.slice(layout.fragStart[f], layout.fragEnd[f]);
    text += fragment.length === 0 ? "∅" : visibleText(fragment, showWhitespace);
  }
  return `<span class="${classes.tok} ${classes[kind]}">${escapeText(text)}</span>`;
}

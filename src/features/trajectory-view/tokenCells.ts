/**
 * The token boxes of one row as the view draws them: their classes, styles and text
 * (`forEachTokenCell`, which the DOM patcher writes into recycled spans), and the row's plain text
 * (`tokenRowPlainText`, which the canvas fast path paints while the list moves fast).
 */
import { TURN_MARK_INSERTED, TURN_MARK_REMOVED } from "../../core/drift/prefixCheck";
import { isSpecialPiece, visibleText } from "../../core/layout/displayPiece";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import { heatColor } from "../../core/layout/heatScale";
import type { TokenLayout } from "../../core/layout/tokenRows";
import { VERDICT } from "../../core/mismatch/mismatch";
import { mismatchColor } from "../../core/mismatch/mismatchScale";
import type { SegmentKind } from "../../core/trajectory/types";

/** CSS-module class names the token spans use (passed in so this stays testable without CSS). */
export type TokenClasses = Readonly<
  Record<
    | SegmentKind
    | "tok"
    | "odd"
    | "special"
    | "dim"
    | "notRecorded"
    | "selected"
    | "cut"
    | "failedCall"
    | "clipped"
    | "masked"
    | "turnRemoved"
    | "turnInserted",
    string
  >
>;

/**
 * The mismatch colouring (docs/mismatch.md): δ per token on the diverging scale, and the verdict
 * of the replayed correction. One object per computation, so rows stay memoized while it holds.
 */
export interface MismatchShading {
  /** δ = logp_a − logp_b per token; NaN where not compared (mask 0, or a lane missing). */
  readonly delta: Float64Array;
  /** `VERDICT` per token of the chosen correction. */
  readonly verdict: Uint8Array;
  /** |δ| at which the scale reaches its darkest shade (core/mismatch/mismatchScale.ts). */
  readonly extent: number;
}

/** How one token is shaded: faded (mask 0), hatched (no value), a colour, or its kind's tint. */
export type TokenShade =
  | "dim"
  | "notRecorded"
  | { readonly background: string; readonly color: string }
  | undefined;

/** What the shading of a token depends on (shared by the DOM rows and the canvas fast path). */
export type ShadeSource = Pick<TokenRowInput, "flat" | "isHeatmap" | "heatFloor" | "mismatch">;

/**
 * The shade of `token`: in mismatch mode by δ (hatched where a trained token lacks a lane), in
 * heatmap mode by its logprob, else none (the segment kind's tint).
 */
export function tokenShade(source: ShadeSource, token: number): TokenShade {
  const { flat, mismatch } = source;
  if (mismatch) {
    if (flat.lossMask[token] !== 1) return "dim";
    const d = mismatch.delta[token] ?? Number.NaN;
    return Number.isNaN(d) ? "notRecorded" : mismatchColor(d, mismatch.extent);
  }
  if (!source.isHeatmap) return undefined;
  if (flat.lossMask[token] !== 1) return "dim";
  const lp = flat.logprobs[token] ?? Number.NaN;
  return Number.isNaN(lp) ? "notRecorded" : heatColor(lp, source.heatFloor);
}

/** Everything one row of token boxes is drawn from (the props of `TokenRow`, less its position). */
export interface TokenRowInput {
  readonly row: number;
  readonly layout: TokenLayout;
  readonly pieces: readonly string[];
  readonly flat: FlatTrajectory;
  readonly kind: SegmentKind;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  /** The heatmap's floor probability: logprobs at or below it get the darkest shade. */
  readonly heatFloor: number;
  /** The selected token when it is on this row (other rows get undefined, so they stay memoized). */
  readonly selected: number | undefined;
  /** The token where the episode was cut when it is on this row. */
  readonly cutToken: number | undefined;
  /**
   * Ids the tokenizer lists as added or special, drawn as chips; undefined while no tokenizer list
   * is known (then pieces that look like control tokens, `<|…|>`, are chips).
   */
  readonly controlTokens?: ReadonlySet<number> | undefined;
  /** 1 per token (token-index space) written as a tool call that failed to parse. */
  readonly failedCalls: Uint8Array | undefined;
  /** Mismatch mode (it overrides the heatmap): the shading of every token; undefined when off. */
  readonly mismatch?: MismatchShading | undefined;
  /**
   * Per token, what the selected turn of the per-turn prefix check does to it (TURN_MARK_* bits of
   * core/drift/prefixCheck.ts: dropped by the re-rendering, or rendered tokens inserted before it).
   */
  readonly turnMarks?: Uint8Array | undefined;
}

/** Receives one token box of a row: its token, classes, inline style ("" for none) and raw text. */
export type TokenCellSink = (
  token: number,
  className: string,
  style: string,
  text: string,
  isSelected: boolean,
) => void;

/**
 * Walks the token boxes of one row in order, handing each to `emit` without allocating a record
 * per box: the walk feeds the DOM patcher the view uses (tokenRowDom.ts); the tests' HTML
 * statement of a row (src/test/tokenRowHtml.ts) is built from it too.
 */
export function forEachTokenCell(
  input: TokenRowInput,
  classes: TokenClasses,
  emit: TokenCellSink,
): void {
  const { row, layout, pieces, flat, kind, showWhitespace, isHeatmap, selected, cutToken } = input;
  const { failedCalls, controlTokens, mismatch, turnMarks } = input;
  const isShaded = isHeatmap || mismatch !== undefined;
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  const base = `${classes.tok} ${classes[kind]}`;
  for (let f = from; f < to; f++) {
    const token = layout.fragToken[f] ?? 0;
    const piece = pieces[token] ?? "";
    const fragment = piece.slice(layout.fragStart[f], layout.fragEnd[f]);
    let className = base;
    if (token % 2 === 1) className += ` ${classes.odd}`;
    const isControl = controlTokens
      ? controlTokens.has(flat.tokenIds[token] ?? -1)
      : isSpecialPiece(piece);
    if (isControl) className += ` ${classes.special}`;
    if (failedCalls?.[token] === 1) className += ` ${classes.failedCall}`;
    const mark = turnMarks?.[token] ?? 0;
    if (mark & TURN_MARK_REMOVED) className += ` ${classes.turnRemoved}`;
    // The insertion point is drawn on the token's first fragment only (a long piece may wrap).
    if (mark & TURN_MARK_INSERTED && layout.fragStart[f] === 0) {
      className += ` ${classes.turnInserted}`;
    }
    let style = "";
    const shade = isShaded ? tokenShade(input, token) : undefined;
    if (shade === "dim") className += ` ${classes.dim}`;
    else if (shade === "notRecorded") className += ` ${classes.notRecorded}`;
    else if (shade !== undefined) style = `background: ${shade.background}; color: ${shade.color}`;
    const verdict = mismatch?.verdict[token];
    if (verdict === VERDICT.clipped) className += ` ${classes.clipped}`;
    else if (verdict === VERDICT.masked) className += ` ${classes.masked}`;
    const isSelected = token === selected;
    if (isSelected) className += ` ${classes.selected}`;
    if (cutToken !== undefined && token === cutToken && f === to - 1)
      className += ` ${classes.cut}`;
    const text = fragment.length === 0 ? "∅" : visibleText(fragment, showWhitespace);
    emit(token, className, style, text, isSelected);
  }
}

/**
 * The row's text as one string (what the token boxes show, side by side), for frames where the
 * list moves faster than a third of a screen a frame and rows are painted into a canvas (fastRowsCanvas.ts).
 */
export function tokenRowPlainText(
  input: Pick<TokenRowInput, "row" | "layout" | "pieces" | "showWhitespace">,
): string {
  const { row, layout, pieces, showWhitespace } = input;
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  let text = "";
  for (let f = from; f < to; f++) {
    const piece = pieces[layout.fragToken[f] ?? 0] ?? "";
    const fragment = piece.slice(layout.fragStart[f], layout.fragEnd[f]);
    text += fragment.length === 0 ? "∅" : visibleText(fragment, showWhitespace);
  }
  return text;
}

import { revealInvisible, visibleText } from "../../core/layout/displayPiece";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import { RowKind, type TokenLayout } from "../../core/layout/tokenRows";
import { VERDICT } from "../../core/mismatch/mismatch";
import { VERDICT_COLORS } from "../../core/mismatch/mismatchScale";
import type { SegmentKind, Trajectory } from "../../core/trajectory/types";
import { KIND_LABEL } from "./kindLabels";
import { GUTTER_PX, TOKEN_FONT } from "./rowMetrics";
import { type ShadeSource, type TokenShade, tokenRowPlainText, tokenShade } from "./tokenCells";

/**
 * While the list moves faster than a third of a screen a frame, rows are painted into one canvas
 * instead of the DOM: a full screen of text then costs ~3 ms a frame instead of ~13 ms of DOM
 * updates, style, layout and paint, and leaves nothing behind for the garbage collector. Each row
 * keeps what a reader can catch at that speed: its segment colour, first token index and text,
 * and in heatmap or mismatch mode each token's shade and verdict mark, as the DOM rows draw them
 * (the same `tokenShade`).
 */

/** One token fragment of a shaded row: its text and how it is shaded. */
export interface FastCell {
  readonly text: string;
  readonly shade: TokenShade;
  /** `VERDICT` of the replayed correction (mismatch mode), else 0. */
  readonly verdict: number;
}

/** One row to paint, in CSS pixels from the top of the viewport. */
export interface FastRow {
  readonly kind: RowKind;
  readonly segmentKind: SegmentKind;
  readonly y: number;
  readonly height: number;
  /** Token rows: the first token's index; other rows: "". */
  readonly gutter: string;
  /** Token rows: the row's text; other rows: their label. */
  readonly text: string;
  /** Token rows in heatmap or mismatch mode: the fragments, each with its own shade. */
  readonly cells?: readonly FastCell[];
}

/** Theme colours, read from the page's CSS custom properties. */
export interface FastPalette {
  readonly bg: string;
  readonly fg: string;
  readonly muted: string;
  readonly border: string;
  readonly cut: string;
  /** The two stripes of a hatched (not recorded) token. */
  readonly nrA: string;
  readonly nrB: string;
  readonly kind: Readonly<Record<SegmentKind, string>>;
  readonly tokBg: Readonly<Record<SegmentKind, string>>;
  readonly tokFg: Readonly<Record<SegmentKind, string>>;
}

const KINDS: readonly SegmentKind[] = ["prompt", "model", "tool"];

/** The palette from an element's computed custom properties (`--bg`, `--kind-model`, ...). */
export function readPalette(style: Pick<CSSStyleDeclaration, "getPropertyValue">): FastPalette {
  const v = (name: string) => style.getPropertyValue(name).trim();
  const per = (prefix: string, suffix = "") =>
    Object.fromEntries(KINDS.map((k) => [k, v(`${prefix}${k}${suffix}`)])) as Record<
      SegmentKind,
      string
    >;
  return {
    bg: v("--bg"),
    fg: v("--fg"),
    muted: v("--muted"),
    border: v("--border"),
    cut: v("--cut"),
    nrA: v("--nr-a"),
    nrB: v("--nr-b"),
    kind: per("--kind-"),
    tokBg: per("--tok-", "-a"),
    tokFg: per("--tok-", "-fg"),
  };
}

/** The canvas calls the painter uses (a fake records them in tests). */
export type FastCanvasContext = Pick<
  CanvasRenderingContext2D,
  | "fillStyle"
  | "font"
  | "textBaseline"
  | "textAlign"
  | "fillRect"
  | "fillText"
  | "measureText"
  | "setTransform"
>;

const BORDER_PX = 4;
const GUTTER_FONT = '11px "DejaVu Sans Mono", ui-monospace, monospace';
const LABEL_FONT = "600 12px system-ui, sans-serif";

/**
 * Paints `rows` over the whole `width` x `height` viewport (CSS pixels, `dpr` device pixels
 * each), the way the DOM rows look: kind-coloured left border, gutter, text on its kind's tint.
 */
export function drawFastRows(
  ctx: FastCanvasContext,
  rows: readonly FastRow[],
  width: number,
  height: number,
  dpr: number,
  palette: FastPalette,
): void {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = palette.bg;
  ctx.fillRect(0, 0, width, height);
  ctx.textBaseline = "middle";
  ctx.font = TOKEN_FONT;
  const cell = ctx.measureText("0").width;
  const textX = GUTTER_PX - BORDER_PX;
  for (const row of rows) {
    if (row.y + row.height < 0 || row.y > height) continue;
    const middle = row.y + row.height / 2;
    switch (row.kind) {
      case RowKind.tokens: {
        ctx.fillStyle = palette.kind[row.segmentKind];
        ctx.fillRect(0, row.y, BORDER_PX, row.height);
        ctx.font = GUTTER_FONT;
        ctx.textAlign = "right";
        ctx.fillStyle = palette.muted;
        ctx.fillText(row.gutter, textX - 12, middle);
        ctx.font = TOKEN_FONT;
        ctx.textAlign = "left";
        if (row.cells) {
          drawCells(ctx, row, row.cells, textX, cell, width, palette);
          break;
        }
        ctx.fillStyle = palette.tokBg[row.segmentKind];
        ctx.fillRect(textX, row.y + 2, Math.min(row.text.length * cell, width - textX), 16);
        ctx.fillStyle = palette.tokFg[row.segmentKind];
        ctx.fillText(row.text, textX, middle);
        break;
      }
      case RowKind.cutoff:
        ctx.fillStyle = palette.cut;
        ctx.fillRect(BORDER_PX, row.y + 4, width - 2 * BORDER_PX, row.height - 8);
        ctx.font = LABEL_FONT;
        ctx.textAlign = "left";
        ctx.fillStyle = "#ffffff";
        ctx.fillText(row.text, BORDER_PX + 12, middle);
        break;
      default:
        // Headers and tool-call cards: a rule in the segment's colour and their label.
        ctx.fillStyle = palette.border;
        ctx.fillRect(0, row.y + row.height - 1, width, 1);
        ctx.fillStyle = palette.kind[row.segmentKind];
        ctx.fillRect(0, row.y, BORDER_PX, row.height);
        ctx.font = LABEL_FONT;
        ctx.textAlign = "left";
        ctx.fillStyle = row.kind === RowKind.toolCall ? palette.kind.tool : palette.fg;
        ctx.fillText(row.text, BORDER_PX + 12, middle);
    }
  }
}

/** A shaded row: each fragment on its own background, with its verdict bar, as the DOM draws it. */
function drawCells(
  ctx: FastCanvasContext,
  row: FastRow,
  cells: readonly FastCell[],
  x0: number,
  cell: number,
  width: number,
  palette: FastPalette,
): void {
  const middle = row.y + row.height / 2;
  let x = x0;
  for (const c of cells) {
    if (x >= width) break;
    const w = c.text.length * cell;
    const shade = c.shade;
    let fg = palette.tokFg[row.segmentKind];
    if (shade === "dim") {
      // The DOM fades mask-0 tokens to 45 %: on the canvas, muted text on the page background.
      fg = palette.muted;
    } else if (shade === "notRecorded") {
      ctx.fillStyle = palette.nrA;
      ctx.fillRect(x, row.y + 2, w, 16);
      ctx.fillStyle = palette.nrB;
      for (let s = 3; s < w; s += 6) ctx.fillRect(x + s, row.y + 2, Math.min(3, w - s), 16);
      fg = palette.fg;
    } else if (shade !== undefined) {
      ctx.fillStyle = shade.background;
      ctx.fillRect(x, row.y + 2, w, 16);
      fg = shade.color;
    } else {
      ctx.fillStyle = palette.tokBg[row.segmentKind];
      ctx.fillRect(x, row.y + 2, w, 16);
    }
    if (c.verdict === VERDICT.clipped || c.verdict === VERDICT.masked) {
      ctx.fillStyle =
        c.verdict === VERDICT.clipped ? VERDICT_COLORS.clipped : VERDICT_COLORS.masked;
      ctx.fillRect(x, row.y + 15, w, 3);
    }
    ctx.fillStyle = fg;
    ctx.fillText(c.text, x, middle);
    x += w;
  }
}

/** The fragments of token row `r` with their shades (heatmap or mismatch mode). */
function shadedCells(r: number, source: FastRowSource): FastCell[] {
  const { layout, pieces, showWhitespace, mismatch } = source;
  const from = layout.rowFragStart[r] ?? 0;
  const to = layout.rowFragStart[r + 1] ?? from;
  const cells: FastCell[] = [];
  for (let f = from; f < to; f++) {
    const token = layout.fragToken[f] ?? 0;
    const fragment = (pieces[token] ?? "").slice(layout.fragStart[f], layout.fragEnd[f]);
    cells.push({
      text: fragment.length === 0 ? "∅" : visibleText(fragment, showWhitespace),
      shade: tokenShade(source, token),
      verdict: mismatch?.verdict[token] ?? 0,
    });
  }
  return cells;
}

export interface FastRowSource extends ShadeSource {
  readonly trajectory: Trajectory;
  readonly layout: TokenLayout;
  readonly flat: FlatTrajectory;
  readonly pieces: readonly string[];
  readonly cutReasons: readonly (string | undefined)[];
  readonly showWhitespace: boolean;
}

/** What to paint for each visible row (`index` into the layout, `y` from the viewport top). */
export function fastRowsOf(
  visible: readonly { readonly index: number; readonly y: number; readonly height: number }[],
  source: FastRowSource,
): FastRow[] {
  const { trajectory, layout, flat, pieces, cutReasons, showWhitespace } = source;
  const isShaded = source.isHeatmap || source.mismatch !== undefined;
  const rows: FastRow[] = [];
  for (const { index: r, y, height } of visible) {
    const s = layout.rowSegment[r] ?? 0;
    const segment = trajectory.segments[s];
    if (!segment) continue;
    const kind = (layout.rowKind[r] ?? RowKind.tokens) as RowKind;
    let gutter = "";
    let text: string;
    switch (kind) {
      case RowKind.tokens:
        gutter = String(layout.fragToken[layout.rowFragStart[r] ?? 0] ?? "");
        text = tokenRowPlainText({ row: r, layout, pieces, showWhitespace });
        break;
      case RowKind.header:
        text = `${KIND_LABEL[segment.kind]}   turn ${segment.turn}   ${segment.tokenIds.length} tokens`;
        break;
      case RowKind.toolCall:
        text = `tool call: ${revealInvisible(segment.toolCalls?.[layout.rowItem[r] ?? 0]?.name ?? "")}`;
        break;
      default: {
        const last = (flat.segmentStarts[s + 1] ?? 0) - 1;
        text = `✂ Episode cut after token #${last}: ${revealInvisible(cutReasons[s] ?? "cut")}`;
      }
    }
    const row: FastRow = { kind, segmentKind: segment.kind, y, height, gutter, text };
    rows.push(
      isShaded && kind === RowKind.tokens ? { ...row, cells: shadedCells(r, source) } : row,
    );
  }
  return rows;
}

/** The palette for the page's theme (`data-theme` on the root), read once per theme, not per frame. */
let paletteOfTheme:
  | { readonly theme: string | undefined; readonly palette: FastPalette }
  | undefined;

function currentPalette(scroller: HTMLElement): FastPalette {
  const theme = document.documentElement.dataset.theme;
  if (paletteOfTheme === undefined || paletteOfTheme.theme !== theme) {
    paletteOfTheme = { theme, palette: readPalette(getComputedStyle(scroller)) };
  }
  return paletteOfTheme.palette;
}

/** Sizes `canvas` to cover `scroller`'s viewport (in device pixels) and paints `rows` into it. */
export function paintFastRows(
  canvas: HTMLCanvasElement,
  scroller: HTMLElement,
  rows: readonly FastRow[],
): void {
  const width = scroller.clientWidth;
  const height = scroller.clientHeight;
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(width * dpr);
  const h = Math.round(height * dpr);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const ctx = canvas.getContext("2d", { alpha: false });
  if (ctx) drawFastRows(ctx, rows, width, height, dpr, currentPalette(scroller));
}

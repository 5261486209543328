import type { CSSProperties } from "react";
import { RowKind } from "../../core/layout/tokenRows";

/** Fixed height in CSS pixels of a row of this kind, so the virtualizer never measures. */
export function rowHeight(kind: number | undefined): number {
  switch (kind) {
    case RowKind.header:
      return 30;
    case RowKind.toolCall:
      return 92;
    case RowKind.cutoff:
      return 34;
    default:
      return 20;
  }
}

/** Must match `.tokens` in TokenRow.module.css: the canvas measures cells with it. */
export const TOKEN_FONT = '13px "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace';
/** Gutter (row's first token index) plus row padding, in CSS pixels. */
export const GUTTER_PX = 84;

/** Absolute placement of a virtual row; rows take `top`/`height` as numbers so memo holds while scrolling. */
export function rowStyle(top: number, height: number): CSSProperties {
  return { transform: `translateY(${top}px)`, height };
}

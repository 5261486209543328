import { useMemo } from "react";

/** Width in CSS pixels of one cell of a monospace `font` (measured once per font with a canvas). */
export function useMonospaceCellWidth(font: string): number {
  return useMemo(() => {
    const context = document.createElement("canvas").getContext("2d");
    if (!context) return 8;
    context.font = font;
    // Averaging over many glyphs absorbs sub-pixel rounding.
    return context.measureText("0".repeat(100)).width / 100 || 8;
  }, [font]);
}

/**
 * Browsers cap how tall a scrolled element may be (about 33.5M CSS px in Chromium, 17.9M in
 * Firefox). A list taller than that scrolls a shorter physical element: the scrollbar maps
 * linearly onto the virtual content, and rows near the viewport keep their exact spacing.
 */

/** Physical height we never exceed, in CSS pixels: below every engine's cap with margin. */
export const MAX_SCROLL_PX = 15_000_000;

/** How a list of `virtualSize` px maps onto a scroll element (all values in CSS pixels). */
export interface ScrollScale {
  /** Height of the whole list as laid out (virtual space). */
  readonly virtualSize: number;
  /** Height given to the scrolled element (physical space), at most the cap. */
  readonly physicalSize: number;
  /** Visible height of the scroll element. */
  readonly viewport: number;
  /** Virtual px per physical px of scrolling (1 when no scaling is needed). */
  readonly ratio: number;
}

/** Scale for a list of `virtualSize` px in a `viewport`-px element, capped at `maxPhysical` px. */
export function scrollScale(
  virtualSize: number,
  viewport: number,
  maxPhysical: number = MAX_SCROLL_PX,
): ScrollScale {
  for (const [name, value] of [
    ["virtualSize", virtualSize],
    ["viewport", viewport],
    ["maxPhysical", maxPhysical],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`scrollScale: ${name} must be a finite number >= 0, got ${value}`);
    }
  }
  if (virtualSize <= maxPhysical || maxPhysical <= viewport) {
    return { virtualSize, physicalSize: virtualSize, viewport, ratio: 1 };
  }
  // Map the scrollable ranges (size minus viewport) onto each other, so both ends line up exactly.
  const ratio = Math.max(1, (virtualSize - viewport) / (maxPhysical - viewport));
  return { virtualSize, physicalSize: maxPhysical, viewport, ratio };
}

/** Virtual list offset (px) shown at a physical scrollTop (px). */
export function toVirtualOffset(scale: ScrollScale, physical: number): number {
  const max = Math.max(0, scale.virtualSize - scale.viewport);
  return Math.min(max, Math.max(0, physical * scale.ratio));
}

/** Physical scrollTop (px) that shows a virtual list offset (px). */
export function toPhysicalOffset(scale: ScrollScale, virtual: number): number {
  const max = Math.max(0, scale.physicalSize - scale.viewport);
  return Math.min(max, Math.max(0, virtual / scale.ratio));
}

/**
 * Physical top (px, inside the scrolled element) of an item that starts at `virtualStart` px, when
 * the element is scrolled to `physical` px: items keep their true distance from the viewport top.
 */
export function physicalItemTop(
  scale: ScrollScale,
  physical: number,
  virtualStart: number,
): number {
  return virtualStart - toVirtualOffset(scale, physical) + physical;
}

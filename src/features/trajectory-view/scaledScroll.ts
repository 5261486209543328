import {
  elementScroll,
  observeElementOffset,
  type Virtualizer,
  type VirtualizerOptions,
} from "@tanstack/react-virtual";
import type { RefObject } from "react";
import {
  physicalItemTop,
  type ScrollScale,
  scrollScale,
  toPhysicalOffset,
  toVirtualOffset,
} from "../../core/layout/scrollScale";

type ListVirtualizer = Virtualizer<HTMLDivElement, Element>;
type ScrollOptions = Pick<
  VirtualizerOptions<HTMLDivElement, Element>,
  "observeElementOffset" | "scrollToFn"
>;

/** The scale for the list as the virtualizer sees it now (identity below the browser's cap). */
export function currentScale(virtualizer: ListVirtualizer): ScrollScale {
  return scrollScale(virtualizer.getTotalSize(), virtualizer.scrollRect?.height ?? 0);
}

/**
 * Virtualizer options that speak virtual offsets to the virtualizer and physical ones to the
 * element, reading the scale through a ref so they stay stable.
 */
export function scaledScrollOptions(scaleRef: RefObject<ScrollScale | undefined>): ScrollOptions {
  return {
    observeElementOffset: (instance, cb) =>
      observeElementOffset(instance, (offset, isScrolling) => {
        const scale = scaleRef.current;
        cb(scale ? toVirtualOffset(scale, offset) : offset, isScrolling);
      }),
    scrollToFn: (offset, options, instance) => {
      const scale = scaleRef.current;
      elementScroll(scale ? toPhysicalOffset(scale, offset) : offset, options, instance);
    },
  };
}

/** Physical top (px) at which to draw an item that starts at virtual `start` px. */
export function itemTop(virtualizer: ListVirtualizer, scale: ScrollScale, start: number): number {
  if (scale.ratio === 1) return start;
  const physical = toPhysicalOffset(scale, virtualizer.scrollOffset ?? 0);
  return physicalItemTop(scale, physical, start);
}

/**
 * Scrolls so a row is centred. Past the cap the virtualizer would clamp the target to the element's
 * (physical) scroll height, so the virtual offset is computed here from its measurements.
 */
export function scrollRowToCenter(virtualizer: ListVirtualizer, row: number): void {
  const scale = currentScale(virtualizer);
  if (scale.ratio === 1) {
    virtualizer.scrollToIndex(row, { align: "center" });
    return;
  }
  const item = virtualizer.measurementsCache[row];
  const element = virtualizer.scrollElement;
  if (!item || !element) return;
  element.scrollTop = toPhysicalOffset(scale, item.start - (scale.viewport - item.size) / 2);
}

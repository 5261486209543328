import { type RefObject, useCallback, useLayoutEffect, useState } from "react";
import { FastScrollDetector } from "../../core/layout/fastScroll";
import { type ScrollScale, toVirtualOffset } from "../../core/layout/scrollScale";

/** How long scrolling must pause before token boxes come back (ms). */
const SETTLE_MS = 100;

/**
 * True while the list is dragged or flung faster than a third of a viewport per scroll event
 * (see FastScrollDetector); rows are then painted into a canvas, which keeps such frames cheap.
 * Call it before `useVirtualizer` (see below).
 */
export function useFastScroll(
  scrollRef: RefObject<HTMLDivElement | null>,
  scaleRef: RefObject<ScrollScale | undefined>,
): { readonly isFastScrolling: boolean; readonly expectJump: () => void } {
  const [isFast, setIsFast] = useState(false);
  const [detector] = useState(() => new FastScrollDetector());
  // A layout effect, called before the virtualizer's: this listener then runs before the one that
  // re-renders the rows (synchronously) on each scroll, so the render that follows a fast scroll
  // event already paints the canvas instead of building token boxes first.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let shown = false;
    // Only a change is handed to React: a same-value update still schedules a render per frame.
    const show = (next: boolean) => {
      if (next === shown) return;
      shown = next;
      setIsFast(next);
    };
    const handleScroll = () => {
      const scale = scaleRef.current;
      const offset = scale ? toVirtualOffset(scale, el.scrollTop) : el.scrollTop;
      show(detector.update(offset, el.clientHeight));
      clearTimeout(timer);
      timer = setTimeout(() => show(false), SETTLE_MS);
    };
    el.addEventListener("scroll", handleScroll, { passive: true });
    return () => {
      clearTimeout(timer);
      el.removeEventListener("scroll", handleScroll);
    };
  }, [scrollRef, scaleRef, detector]);
  const expectJump = useCallback(() => {
    detector.expectJump();
    // A scroll's event is dispatched before the next frame's animation callbacks: by then a jump
    // to where the list already was (no event) must not make the user's next drag look like one.
    requestAnimationFrame(() => detector.forgetJump());
  }, [detector]);
  return { isFastScrolling: isFast, expectJump };
}

import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { TokenAnchor } from "../../core/layout/tokenAnchor";
import type { TokenLayout } from "../../core/layout/tokenRows";

/**
 * Keeps the anchored token (the deep link's `?token=N`, then every jump of the view's own) in view
 * through every re-layout: a new layout (the tokenizer's pieces arrived, the width changed) or a
 * resized list (the turn strip or a panel above it arrived) scrolls back to it, until the reader
 * scrolls on their own (docs/token-view.md). Returns the jump that pins a token and scrolls to it.
 */
export function useTokenAnchor(
  scrollRef: RefObject<HTMLDivElement | null>,
  layout: TokenLayout,
  initialToken: number | undefined,
  scrollToToken: (token: number) => void,
): (token: number) => void {
  const [anchor] = useState(() => new TokenAnchor(initialToken));
  const scrollRefToToken = useRef(scrollToToken);
  useLayoutEffect(() => {
    scrollRefToToken.current = scrollToToken;
  });
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const release = () => anchor.release();
    const handleKey = (event: KeyboardEvent) => anchor.keyPressed(event.key);
    let frame = 0;
    const resized = new ResizeObserver(() => {
      // After the virtualizer has seen the new size too.
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (anchor.token !== undefined) scrollRefToToken.current(anchor.token);
      });
    });
    resized.observe(el);
    el.addEventListener("wheel", release, { passive: true });
    el.addEventListener("touchstart", release, { passive: true });
    el.addEventListener("pointerdown", release);
    el.addEventListener("keydown", handleKey);
    return () => {
      cancelAnimationFrame(frame);
      resized.disconnect();
      el.removeEventListener("wheel", release);
      el.removeEventListener("touchstart", release);
      el.removeEventListener("pointerdown", release);
      el.removeEventListener("keydown", handleKey);
    };
  }, [scrollRef, anchor]);
  // Every layout, the first included (it waits for the measured width).
  useEffect(() => {
    if (anchor.token !== undefined && layout.rowCount > 0) scrollToToken(anchor.token);
  }, [anchor, layout, scrollToToken]);
  return useCallback(
    (token: number) => {
      anchor.pin(token);
      scrollToToken(token);
    },
    [anchor, scrollToToken],
  );
}

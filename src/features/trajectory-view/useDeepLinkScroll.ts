import { useEffect, useRef } from "react";
import type { TokenLayout } from "../../core/layout/tokenRows";

/**
 * Deep link (`?token=N`): scrolls to the token the view opened at, once, as soon as there is a
 * layout to scroll in (the first layout waits for the measured width).
 */
export function useDeepLinkScroll(
  layout: TokenLayout,
  selected: number | undefined,
  scrollToToken: (token: number) => void,
): void {
  const hasScrolled = useRef(false);
  useEffect(() => {
    if (hasScrolled.current || layout.rowCount === 0) return;
    hasScrolled.current = true;
    if (selected !== undefined) scrollToToken(selected);
  }, [layout, selected, scrollToToken]);
}

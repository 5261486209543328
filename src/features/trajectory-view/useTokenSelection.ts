import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { tokenPosition } from "../../core/layout/tokenAnchor";

/**
 * The selected token (undefined when none), opened at `initialToken` when it is a token of the
 * trajectory, and moved to it again when the link changes (`?token=N` followed on the same page).
 * `select` tells the parent and, when asked, brings the token into view and keeps it there.
 */
export function useTokenSelection(
  tokenCount: number,
  initialToken: number | undefined,
  onSelectToken: ((token: number) => void) | undefined,
  keepInView: (token: number) => void,
) {
  const [selected, setSelected] = useState(() => tokenPosition(initialToken, tokenCount));
  // The parent's callback may change identity on every URL update; reading it through a ref keeps
  // `select` (and the memoized chart behind it) stable.
  const onSelectTokenRef = useRef(onSelectToken);
  const selectedRef = useRef(selected);
  useLayoutEffect(() => {
    onSelectTokenRef.current = onSelectToken;
    selectedRef.current = selected;
  });
  const select = useCallback(
    (token: number, shouldScroll: boolean) => {
      setSelected(token);
      onSelectTokenRef.current?.(token);
      if (shouldScroll) keepInView(token);
    },
    [keepInView],
  );
  const linked = tokenPosition(initialToken, tokenCount);
  const lastLinked = useRef(linked);
  useEffect(() => {
    // Only a link that changed moves the selection: a render that still sees the URL's previous
    // token (the page writes each selection into its URL, a moment later) is not a jump back, and
    // a page writing its own selection sees it come back equal.
    if (linked === lastLinked.current) return;
    lastLinked.current = linked;
    if (linked !== undefined && linked !== selectedRef.current) select(linked, true);
  }, [linked, select]);
  return { selected, select };
}

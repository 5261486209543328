import { useCallback, useLayoutEffect, useRef, useState } from "react";

/**
 * The selected token (undefined when none), opened at `initialToken` when it is a token of the
 * trajectory. `select` tells the parent and, when asked, scrolls the token into view.
 */
export function useTokenSelection(
  tokenCount: number,
  initialToken: number | undefined,
  onSelectToken: ((token: number) => void) | undefined,
  scrollToToken: (token: number) => void,
) {
  const [selected, setSelected] = useState(() =>
    initialToken !== undefined &&
    Number.isInteger(initialToken) &&
    initialToken >= 0 &&
    initialToken < tokenCount
      ? initialToken
      : undefined,
  );
  // The parent's callback may change identity on every URL update; reading it through a ref keeps
  // `select` (and the memoized chart behind it) stable.
  const onSelectTokenRef = useRef(onSelectToken);
  useLayoutEffect(() => {
    onSelectTokenRef.current = onSelectToken;
  });
  const select = useCallback(
    (token: number, shouldScroll: boolean) => {
      setSelected(token);
      onSelectTokenRef.current?.(token);
      if (shouldScroll) scrollToToken(token);
    },
    [scrollToToken],
  );
  return { selected, select };
}

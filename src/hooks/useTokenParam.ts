import { useCallback, useEffect, useRef } from "react";
import { useLocation, useSearchParams } from "react-router";

/*
 * `?token=N` of a page that shows a trajectory (a file row, an episode, a demo): read as the token
 * to open at, and written back as tokens are selected, so the address bar at a token is a link
 * to it (docs/keyboard-and-urls.md). Writes replace the history entry, at most one per
 * TOKEN_URL_INTERVAL_MS while tokens are stepped through (the last one always lands): Safari
 * allows 100 replaceState calls per 30 s and throws past them, which a held arrow key reached.
 */

export const TOKEN_URL_INTERVAL_MS = 350;

/** `search` with `token` set to `token` (a 0-based position in the row), the rest kept in order. */
export function searchWithToken(search: string, token: number): string {
  const params = new URLSearchParams(search);
  params.set("token", String(token));
  return params.toString();
}

/** The latest value passed to `write` at most once per `interval` ms: the first at once, the last always. */
export function throttleLatest<T>(
  write: (value: T) => void,
  interval: number,
  now: () => number = () => performance.now(),
): { push(value: T): void; cancel(): void } {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let latest: T;
  const flush = () => {
    timer = undefined;
    last = now();
    write(latest);
  };
  return {
    push(value) {
      latest = value;
      if (timer !== undefined) return;
      const wait = last + interval - now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** `?token=N` (a token index, else undefined) and the handler that writes a selected token into it. */
export function useTokenParam(): [number | undefined, (token: number) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const { pathname } = useLocation();
  const writer = useRef<ReturnType<typeof throttleLatest<number>>>(undefined);
  // react-router makes a new setter each time the URL changes: the throttle outlives them.
  const setParams = useRef(setSearchParams);
  setParams.current = setSearchParams;
  // Made on the first selection (a child's mount effect may select before this page's effects run).
  const writerNow = useCallback(() => {
    writer.current ??= throttleLatest<number>((token) => {
      setParams.current((p) => new URLSearchParams(searchWithToken(p.toString(), token)), {
        replace: true,
      });
    }, TOKEN_URL_INTERVAL_MS);
    return writer.current;
  }, []);
  // A write still waiting belongs to the page it was made on: dropped when the path changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger
  useEffect(() => {
    const current = writerNow();
    return () => {
      current.cancel();
      if (writer.current === current) writer.current = undefined;
    };
  }, [pathname, writerNow]);
  const handleSelectToken = useCallback((token: number) => writerNow().push(token), [writerNow]);
  const param = searchParams.get("token");
  const token = param !== null && /^\d+$/.test(param) ? Number(param) : undefined;
  return [token, handleSelectToken];
}

import { useEffect, useState } from "react";

/**
 * False on the first render, true once the browser has painted it: lets costly, secondary parts
 * (the chart) mount after the token rows are on screen instead of delaying them.
 */
export function useIsAfterFirstPaint(): boolean {
  const [isAfter, setIsAfter] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A task queued from requestAnimationFrame runs after that frame has been painted.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setIsAfter(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return isAfter;
}

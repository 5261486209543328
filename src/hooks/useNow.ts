import { useEffect, useState } from "react";

/** The current time (epoch ms), updated every `intervalMs` while `isTicking`. */
export function useNow(isTicking: boolean, intervalMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!isTicking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [isTicking, intervalMs]);
  return now;
}

/** How the client retries; times in milliseconds. */
export interface RetryPolicy {
  /** Total attempts per call, the first included (1 = never retry). */
  readonly maxAttempts: number;
  /** Cap of the first backoff window; window n is `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Defaults for long RL runs: a router restart or a weight update can make a server refuse or 503 for
 * tens of seconds, and losing a rollout costs far more than waiting. 6 attempts with windows of
 * 0.5, 1, 2, 4, 8 s ride out ~15 s of trouble on average (~30 s worst case) before surfacing a
 * typed error the agent can act on.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/**
 * Delay before the next attempt after `attempt` failed (1-based): "full jitter", uniform in
 * [0, window), which spreads thousands of concurrent retries instead of synchronizing them.
 * A server `Retry-After` (ms) raises the floor, still capped by `maxDelayMs`.
 */
export function backoffDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = random() * window;
  return Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0));
}

/** Parses a `Retry-After` header (seconds or HTTP date) into milliseconds from `now`. */
export function parseRetryAfterMs(
  header: string | undefined,
  now = Date.now(),
): number | undefined {
  if (header === undefined || header === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

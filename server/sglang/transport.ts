import type { z } from "zod";
import type { CallRetry } from "../../src/core/trajectory/types";
import { AttemptGuard, toSglangError } from "./attemptGuard";
import {
  type ErrorContext,
  SglangAbortedError,
  SglangConnectionError,
  SglangDecodingError,
  type SglangError,
  SglangHttpError,
  SglangTimeoutError,
} from "./errors";
import { errorFromStatus, parseJson } from "./replies";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retryPolicy";
import { newRid } from "./rid";
import { Semaphore } from "./semaphore";
import {
  DEFAULT_HEALTH_POLICY,
  type HealthPolicy,
  splitUpstreamUrls,
  Upstream,
  UpstreamSet,
} from "./upstreams";

/** Client settings; every time is in milliseconds. Defaults target long RL runs (see README). */
export interface SglangClientOptions {
  /** One URL, several, or a comma-separated list; an sgl-router URL works as is. */
  readonly upstreams: string | readonly string[];
  readonly apiKey?: string;
  /** Requests in flight through this client at once; the rest queue (FIFO). Default 1024. */
  readonly maxConcurrency?: number;
  /** Keep-alive sockets per upstream. Default: maxConcurrency. */
  readonly connectionsPerUpstream?: number;
  /** TCP connect timeout. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Whole-attempt timeout of a non-streaming call (long generations take minutes). Default 10 min. */
  readonly requestTimeoutMs?: number;
  /** A stream with no byte for this long is a timeout. Default 2 min (prefill of long prompts). */
  readonly streamIdleTimeoutMs?: number;
  /** Timeout of the /abort_request we send after a timeout or caller abort. Default 5 s. */
  readonly abortRequestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly health?: Partial<HealthPolicy>;
}

/** One try of one call: where it goes and under which rid. */
export interface Attempt {
  readonly upstream: Upstream;
  readonly rid: string;
  /** 1-based. */
  readonly number: number;
  /** The call's attempts that failed before this one, with the backoff after each. */
  readonly failed: readonly CallRetry[];
}

/**
 * The connection side of the client: keep-alive pools per upstream, the concurrency cap, the retry
 * loop with backoff, timeouts and /abort_request. SglangClient adds the SGLang API on top.
 */
export class Transport {
  readonly set: UpstreamSet;
  readonly semaphore: Semaphore;
  readonly retry: RetryPolicy;
  readonly headers: Record<string, string>;
  readonly requestTimeoutMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly abortTimeoutMs: number;
  readonly ridUpstream = new Map<string, Upstream>();

  constructor(options: SglangClientOptions) {
    const maxConcurrency = options.maxConcurrency ?? 1024;
    const poolOptions = {
      connections: options.connectionsPerUpstream ?? maxConcurrency,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: 60_000,
      // Non-streaming replies send headers only when generation ends; per-request timeouts
      // (AttemptGuard) bound each attempt instead of these pool-wide ones.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    const urls = splitUpstreamUrls(options.upstreams);
    this.set = new UpstreamSet(
      urls.map((u) => new Upstream(u, poolOptions)),
      { ...DEFAULT_HEALTH_POLICY, ...options.health },
      (u, timeoutMs) => this.probe(u, timeoutMs),
    );
    this.semaphore = new Semaphore(maxConcurrency);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.headers = { "content-type": "application/json" };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 600_000;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 120_000;
    this.abortTimeoutMs = options.abortRequestTimeoutMs ?? 5_000;
  }

  /**
   * Runs `run` under a concurrency slot, retrying retryable SglangErrors with backoff on a freshly
   * picked upstream and a fresh rid; timed-out or caller-aborted attempts get /abort_request first.
   * The first attempt goes to `preferred` (a base URL) while that upstream is healthy.
   */
  async withRetries<T>(
    firstRid: string | undefined,
    signal: AbortSignal | undefined,
    run: (attempt: Attempt) => Promise<T>,
    preferred?: string,
  ): Promise<T> {
    // Synchronous fast path: an extra await per call is measurable against a loopback round trip.
    if (signal?.aborted || !this.semaphore.tryAcquire()) await this.acquire(signal);
    try {
      let rid = firstRid ?? newRid();
      const failed: CallRetry[] = [];
      for (let number = 1; ; number++) {
        // Only the first attempt honours the preference: a retry goes wherever is least busy.
        const attempt: Attempt = {
          upstream: this.set.pick(number === 1 ? preferred : undefined),
          rid,
          number,
          failed,
        };
        this.track(attempt, true);
        try {
          const value = await run(attempt);
          this.set.reportSuccess(attempt.upstream);
          return value;
        } catch (error) {
          const failure = this.classifyFailure(error, attempt);
          if (failure instanceof SglangTimeoutError || isCallerAbort(failure)) {
            // The server may still be generating for this rid: free its slot before moving on.
            await this.sendAbort(attempt.upstream, attempt.rid);
          }
          if (!(await this.shouldRetry(failure, attempt, signal, failed))) throw failure;
        } finally {
          this.track(attempt, false);
        }
        // A fresh rid per attempt: the old one may still be alive server-side, and rids are unique.
        rid = newRid();
      }
    } finally {
      this.semaphore.release();
    }
  }

  /** Types a failure, stamps the attempt count, and feeds connection failures to upstream health. */
  classifyFailure(error: unknown, attempt: Attempt): SglangError {
    const failure = toSglangError(error, contextOf(attempt));
    failure.attempts = attempt.number;
    if (failure instanceof SglangConnectionError)
      this.set.reportConnectionFailure(attempt.upstream);
    return failure;
  }

  /**
   * Waits out the backoff and says whether to try again; a retried attempt is recorded in
   * `failed` (its rid, upstream, error and the backoff), which the call's result carries.
   */
  async shouldRetry(
    failure: SglangError,
    attempt: Attempt,
    signal: AbortSignal | undefined,
    failed: CallRetry[],
  ) {
    if (!failure.isRetryable || attempt.number >= this.retry.maxAttempts) return false;
    const retryAfter = failure instanceof SglangHttpError ? failure.retryAfterMs : undefined;
    const backoffMs = backoffDelayMs(this.retry, attempt.number, retryAfter);
    failed.push({
      rid: attempt.rid,
      upstream: attempt.upstream.url,
      error: `${failure.name}: ${failure.message}`,
      backoffMs: Math.round(backoffMs),
    });
    await sleep(backoffMs, signal, contextOf(attempt));
    return true;
  }

  async acquire(signal: AbortSignal | undefined): Promise<void> {
    if (!signal?.aborted && this.semaphore.tryAcquire()) return;
    try {
      await this.semaphore.acquire(signal);
    } catch {
      throw new SglangAbortedError(
        "request aborted by the caller while queued",
        "signal",
        undefined,
      );
    }
  }

  track(attempt: Attempt, isStart: boolean): void {
    if (isStart) {
      attempt.upstream.inFlight++;
      this.ridUpstream.set(attempt.rid, attempt.upstream);
    } else {
      attempt.upstream.inFlight--;
      this.ridUpstream.delete(attempt.rid);
    }
  }

  /** One non-streaming HTTP exchange; resolves to the 200 body text, throws typed errors. */
  async exchange(
    attempt: Attempt,
    method: "GET" | "POST",
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const ctx = contextOf(attempt);
    const guard = new AttemptGuard(signal, this.requestTimeoutMs);
    try {
      const res = await attempt.upstream.pool.request({
        method,
        path: `${attempt.upstream.basePath}${path}`,
        headers: this.headers,
        body,
        ...guard.requestOptions,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) {
        throw errorFromStatus(res.statusCode, text, headerOf(res.headers["retry-after"]), ctx);
      }
      return text;
    } catch (error) {
      throw guard.classify(error, ctx);
    } finally {
      guard.dispose();
    }
  }

  async getWithFallback<S extends z.ZodType>(
    paths: readonly string[],
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.infer<S>> {
    const [path, ...rest] = paths;
    if (path === undefined) throw new Error("no path to try");
    try {
      return await this.withRetries(undefined, signal, async (attempt) => {
        const ctx = contextOf(attempt);
        const parsed = schema.safeParse(
          parseJson(await this.exchange(attempt, "GET", path, undefined, signal), ctx),
        );
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = issue?.path.join(".") || "(root)";
          throw new SglangDecodingError(
            `${attempt.upstream.url}${path}: field ${field}: ${issue?.message}`,
            false,
            "",
            ctx,
          );
        }
        return parsed.data;
      });
    } catch (error) {
      if (error instanceof SglangHttpError && error.status === 404 && rest.length > 0) {
        return this.getWithFallback(rest, schema, signal);
      }
      throw error;
    }
  }

  async probe(u: Upstream, timeoutMs: number): Promise<boolean> {
    const guard = new AttemptGuard(undefined, timeoutMs);
    try {
      const res = await u.pool.request({
        method: "GET",
        path: `${u.basePath}/health`,
        ...guard.requestOptions,
      });
      await res.body.dump();
      return res.statusCode === 200;
    } catch {
      return false;
    } finally {
      guard.dispose();
    }
  }

  /** Best-effort /abort_request; true when the upstream answered 200. Never throws. */
  async sendAbort(u: Upstream, rid: string): Promise<boolean> {
    const guard = new AttemptGuard(undefined, this.abortTimeoutMs);
    try {
      const res = await u.pool.request({
        method: "POST",
        path: `${u.basePath}/abort_request`,
        headers: this.headers,
        body: JSON.stringify({ rid }),
        ...guard.requestOptions,
      });
      await res.body.dump();
      return res.statusCode === 200;
    } catch {
      return false;
    } finally {
      guard.dispose();
    }
  }
}

export function contextOf(attempt: Attempt): ErrorContext {
  return { upstream: attempt.upstream.url, rid: attempt.rid, attempts: attempt.number };
}

function isCallerAbort(error: SglangError): boolean {
  return error instanceof SglangAbortedError && error.origin === "signal";
}

export function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sleep(ms: number, signal: AbortSignal | undefined, ctx: ErrorContext): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        new SglangAbortedError(
          "request aborted by the caller during backoff",
          "signal",
          undefined,
          ctx,
        ),
      );
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new SglangAbortedError(
          "request aborted by the caller during backoff",
          "signal",
          undefined,
          ctx,
        ),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

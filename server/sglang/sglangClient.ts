import type { z } from "zod";
import {
  type ModelInfoWire,
  type ModelsListWire,
  modelInfoSchema,
  modelsListSchema,
  type ServerInfoWire,
  serverInfoSchema,
} from "../../src/core/wire/sglang";
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
import {
  buildBatchBody,
  buildGenerateBody,
  checkRequest,
  type GenerateRequest,
} from "./generateBody";
import { type GenerateResult, mergeStreamChunk } from "./normalize";
import { errorFromStatus, parseJson, rejectAbort, resultFromJson } from "./replies";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retryPolicy";
import { newRid } from "./rid";
import { Semaphore } from "./semaphore";
import { sseData } from "./sse";
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

export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** A generation plus where and after how many attempts it was obtained. */
export interface ClientGenerateResult extends GenerateResult {
  readonly upstream: string;
  readonly attempts: number;
}

export type BatchItemOutcome =
  | { readonly ok: true; readonly result: ClientGenerateResult }
  | { readonly ok: false; readonly error: SglangAbortedError };

export interface UpstreamHealth {
  readonly url: string;
  readonly isHealthy: boolean;
}

interface Attempt {
  readonly upstream: Upstream;
  readonly rid: string;
  readonly number: number;
}

/** The SGLang native-API client: pooled, capped, retried, abortable, spread over upstreams. */
export class SglangClient {
  readonly #set: UpstreamSet;
  readonly #semaphore: Semaphore;
  readonly #retry: RetryPolicy;
  readonly #headers: Record<string, string>;
  readonly #requestTimeoutMs: number;
  readonly #streamIdleTimeoutMs: number;
  readonly #abortTimeoutMs: number;
  readonly #ridUpstream = new Map<string, Upstream>();

  constructor(options: SglangClientOptions) {
    const maxConcurrency = options.maxConcurrency ?? 1024;
    const poolOptions = {
      connections: options.connectionsPerUpstream ?? maxConcurrency,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: 60_000,
      // Non-streaming replies send headers only when generation ends; our own timers bound it.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    const urls = splitUpstreamUrls(options.upstreams);
    this.#set = new UpstreamSet(
      urls.map((u) => new Upstream(u, poolOptions)),
      { ...DEFAULT_HEALTH_POLICY, ...options.health },
      (u, timeoutMs) => this.#probe(u, timeoutMs),
    );
    this.#semaphore = new Semaphore(maxConcurrency);
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#headers = { "content-type": "application/json" };
    if (options.apiKey) this.#headers.authorization = `Bearer ${options.apiKey}`;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 600_000;
    this.#streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 120_000;
    this.#abortTimeoutMs = options.abortRequestTimeoutMs ?? 5_000;
  }

  /** Base URLs of the upstreams, in the order given. */
  get upstreamUrls(): readonly string[] {
    return this.#set.upstreams.map((u) => u.url);
  }

  /** Live in-flight counts and health, for status pages and tests. */
  upstreamStates(): readonly (UpstreamHealth & { readonly inFlight: number })[] {
    return this.#set.upstreams.map((u) => ({
      url: u.url,
      isHealthy: u.isHealthy,
      inFlight: u.inFlight,
    }));
  }

  /** POST /generate for one prompt; resolves to the finished generation or throws an SglangError. */
  generate(request: GenerateRequest, options: CallOptions = {}): Promise<ClientGenerateResult> {
    checkRequest(request);
    const signal = options.signal;
    return this.#withRetries(request.rid, signal, async (attempt) => {
      const body = JSON.stringify(buildGenerateBody(request, attempt.rid, false));
      const reply = await this.#exchange(attempt, "POST", "/generate", body, signal);
      const ctx = contextOf(attempt);
      const result = resultFromJson(parseJson(reply, ctx), `${attempt.upstream.url}/generate`, ctx);
      return {
        ...rejectAbort(result, ctx),
        upstream: attempt.upstream.url,
        attempts: attempt.number,
      };
    });
  }

  /**
   * One batch POST /generate (spec §3): all items succeed or the call fails as a whole (one bad item
   * is a 400 for all). Items the server aborted come back as `{ ok: false, error }`, never as turns.
   */
  generateBatch(
    requests: readonly GenerateRequest[],
    options: CallOptions = {},
  ): Promise<readonly BatchItemOutcome[]> {
    if (requests.length === 0) throw new RangeError("generateBatch: requests is empty");
    for (const r of requests) checkRequest(r);
    return this.#withRetries(undefined, options.signal, async (attempt) => {
      // One fresh fixed-width rid per item: `<rid><i>` would break prefix-freedom for /abort_request.
      const rids = requests.map((r) => (attempt.number === 1 && r.rid) || newRid());
      const body = JSON.stringify(buildBatchBody(requests, rids));
      const ctx = contextOf(attempt);
      const json = parseJson(
        await this.#exchange(attempt, "POST", "/generate", body, options.signal),
        ctx,
      );
      if (!Array.isArray(json) || json.length !== requests.length) {
        throw new SglangDecodingError(
          `${attempt.upstream.url}/generate: batch of ${requests.length} got ${Array.isArray(json) ? `${json.length} items` : "a non-array"}`,
          false,
          "",
          ctx,
        );
      }
      return json.map((item: unknown, i): BatchItemOutcome => {
        const result = resultFromJson(item, `${attempt.upstream.url}/generate item ${i}`, ctx);
        const full = { ...result, upstream: attempt.upstream.url, attempts: attempt.number };
        try {
          rejectAbort(full, { ...ctx, rid: result.rid });
          return { ok: true, result: full };
        } catch (error) {
          if (error instanceof SglangAbortedError) return { ok: false, error };
          throw error;
        }
      });
    });
  }

  /**
   * Streaming /generate: yields cumulative snapshots (delta-mode servers are folded, spec §4); the
   * last one has a finish reason. Failures before the first snapshot are retried; later ones throw,
   * since a retry would sample a different continuation. Stopping iteration (break/return) aborts
   * the request; a consumer that neither finishes nor stops keeps its concurrency slot.
   */
  async *generateStream(
    request: GenerateRequest,
    options: CallOptions = {},
  ): AsyncGenerator<ClientGenerateResult, void, undefined> {
    checkRequest(request);
    const signal = options.signal;
    await this.#acquire(signal);
    try {
      let rid = request.rid ?? newRid();
      for (let number = 1; ; number++) {
        const attempt: Attempt = { upstream: this.#set.pick(), rid, number };
        let yielded = false;
        try {
          for await (const snapshot of this.#streamAttempt(request, attempt, signal)) {
            yielded = true;
            yield snapshot;
          }
          return;
        } catch (error) {
          const failure = this.#classifyFailure(error, attempt);
          if (yielded || !(await this.#shouldRetry(failure, attempt, signal))) throw failure;
        }
        rid = newRid();
      }
    } finally {
      this.#semaphore.release();
    }
  }

  /** GET /health on every upstream (updating their health); 200 means healthy. */
  async health(): Promise<readonly UpstreamHealth[]> {
    return Promise.all(
      this.#set.upstreams.map(async (u) => ({ url: u.url, isHealthy: await this.#set.probe(u) })),
    );
  }

  /** Model paths; tries `/model_info`, then the older `/get_model_info`. */
  modelInfo(options: CallOptions = {}): Promise<ModelInfoWire> {
    return this.#getWithFallback(["/model_info", "/get_model_info"], modelInfoSchema, options);
  }

  /** Server args and scheduler limits; tries `/server_info`, then `/get_server_info`. */
  serverInfo(options: CallOptions = {}): Promise<ServerInfoWire> {
    return this.#getWithFallback(["/server_info", "/get_server_info"], serverInfoSchema, options);
  }

  /** `GET /v1/models`; `data[0].max_model_len` is the context window in tokens. */
  models(options: CallOptions = {}): Promise<ModelsListWire> {
    return this.#getWithFallback(["/v1/models"], modelsListSchema, options);
  }

  /**
   * POST /abort_request for `rid`: to the upstream running it when this client sent it, else to
   * every upstream. SGLang answers 200 even for unknown rids. Throws only if no upstream answered.
   */
  async abort(rid: string): Promise<void> {
    const owner = this.#ridUpstream.get(rid);
    const targets = owner ? [owner] : this.#set.upstreams;
    const outcomes = await Promise.all(targets.map((u) => this.#sendAbort(u, rid)));
    if (!outcomes.some((ok) => ok)) {
      throw new SglangConnectionError(`/abort_request for ${rid} reached no upstream`, { rid });
    }
  }

  /** Stops health probes and closes every connection. */
  close(): Promise<void> {
    return this.#set.close();
  }

  async *#streamAttempt(
    request: GenerateRequest,
    attempt: Attempt,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ClientGenerateResult> {
    const ctx = contextOf(attempt);
    const where = `${attempt.upstream.url}/generate (stream)`;
    const guard = new AttemptGuard(signal, this.#streamIdleTimeoutMs);
    this.#track(attempt, true);
    let isFinished = false;
    let body: { destroy(): unknown } | undefined;
    try {
      const res = await attempt.upstream.pool.request({
        method: "POST",
        path: `${attempt.upstream.basePath}/generate`,
        headers: this.#headers,
        body: JSON.stringify(buildGenerateBody(request, attempt.rid, true)),
        ...guard.requestOptions,
      });
      body = res.body;
      if (res.statusCode !== 200) {
        const text = await res.body.text();
        throw errorFromStatus(res.statusCode, text, headerOf(res.headers["retry-after"]), ctx);
      }
      let held: GenerateResult | undefined;
      for await (const data of sseData(res.body)) {
        if (data === "[DONE]") break;
        const chunk = resultFromJson(parseJson(data, ctx), where, ctx, true);
        held = mergeStreamChunk(held, chunk);
        if (held.finishReason !== null) {
          isFinished = true;
          rejectAbort(held, ctx);
        }
        yield { ...held, upstream: attempt.upstream.url, attempts: attempt.number };
      }
      this.#set.reportSuccess(attempt.upstream);
      if (!isFinished) {
        throw new SglangConnectionError(
          `${where}: stream ended without a final finish_reason`,
          ctx,
        );
      }
    } catch (error) {
      throw guard.classify(error, ctx);
    } finally {
      guard.dispose();
      this.#track(attempt, false);
      if (!isFinished) {
        // Closing the socket aborts server-side only after ~2 s (spec §4); tell the server now.
        body?.destroy();
        await this.#sendAbort(attempt.upstream, attempt.rid);
      }
    }
  }

  async #withRetries<T>(
    firstRid: string | undefined,
    signal: AbortSignal | undefined,
    run: (attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    // Synchronous fast path: an extra await per call is measurable against a loopback round trip.
    if (signal?.aborted || !this.#semaphore.tryAcquire()) await this.#acquire(signal);
    try {
      let rid = firstRid ?? newRid();
      for (let number = 1; ; number++) {
        const attempt: Attempt = { upstream: this.#set.pick(), rid, number };
        this.#track(attempt, true);
        try {
          const value = await run(attempt);
          this.#set.reportSuccess(attempt.upstream);
          return value;
        } catch (error) {
          const failure = this.#classifyFailure(error, attempt);
          if (failure instanceof SglangTimeoutError || isCallerAbort(failure)) {
            // The server may still be generating for this rid: free its slot before moving on.
            await this.#sendAbort(attempt.upstream, rid);
          }
          if (!(await this.#shouldRetry(failure, attempt, signal))) throw failure;
        } finally {
          this.#track(attempt, false);
        }
        // A fresh rid per attempt: the old one may still be alive server-side, and rids are unique.
        rid = newRid();
      }
    } finally {
      this.#semaphore.release();
    }
  }

  #classifyFailure(error: unknown, attempt: Attempt): SglangError {
    const failure = toSglangError(error, contextOf(attempt));
    failure.attempts = attempt.number;
    if (failure instanceof SglangConnectionError)
      this.#set.reportConnectionFailure(attempt.upstream);
    return failure;
  }

  /** Waits out the backoff and says whether to try again. */
  async #shouldRetry(failure: SglangError, attempt: Attempt, signal: AbortSignal | undefined) {
    if (!failure.isRetryable || attempt.number >= this.#retry.maxAttempts) return false;
    const retryAfter = failure instanceof SglangHttpError ? failure.retryAfterMs : undefined;
    await sleep(
      backoffDelayMs(this.#retry, attempt.number, retryAfter),
      signal,
      contextOf(attempt),
    );
    return true;
  }

  async #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (!signal?.aborted && this.#semaphore.tryAcquire()) return;
    try {
      await this.#semaphore.acquire(signal);
    } catch {
      throw new SglangAbortedError(
        "request aborted by the caller while queued",
        "signal",
        undefined,
      );
    }
  }

  #track(attempt: Attempt, isStart: boolean): void {
    if (isStart) {
      attempt.upstream.inFlight++;
      this.#ridUpstream.set(attempt.rid, attempt.upstream);
    } else {
      attempt.upstream.inFlight--;
      this.#ridUpstream.delete(attempt.rid);
    }
  }

  /** One non-streaming HTTP exchange; resolves to the 200 body text, throws typed errors. */
  async #exchange(
    attempt: Attempt,
    method: "GET" | "POST",
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const ctx = contextOf(attempt);
    const guard = new AttemptGuard(signal, this.#requestTimeoutMs);
    try {
      const res = await attempt.upstream.pool.request({
        method,
        path: `${attempt.upstream.basePath}${path}`,
        headers: this.#headers,
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

  async #getWithFallback<S extends z.ZodType>(
    paths: readonly string[],
    schema: S,
    options: CallOptions,
  ): Promise<z.infer<S>> {
    const [path, ...rest] = paths;
    if (path === undefined) throw new Error("no path to try");
    try {
      return await this.#withRetries(undefined, options.signal, async (attempt) => {
        const ctx = contextOf(attempt);
        const parsed = schema.safeParse(
          parseJson(await this.#exchange(attempt, "GET", path, undefined, options.signal), ctx),
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
        return this.#getWithFallback(rest, schema, options);
      }
      throw error;
    }
  }

  async #probe(u: Upstream, timeoutMs: number): Promise<boolean> {
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
  async #sendAbort(u: Upstream, rid: string): Promise<boolean> {
    const guard = new AttemptGuard(undefined, this.#abortTimeoutMs);
    try {
      const res = await u.pool.request({
        method: "POST",
        path: `${u.basePath}/abort_request`,
        headers: this.#headers,
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

function contextOf(attempt: Attempt): ErrorContext {
  return { upstream: attempt.upstream.url, rid: attempt.rid, attempts: attempt.number };
}

function isCallerAbort(error: SglangError): boolean {
  return error instanceof SglangAbortedError && error.origin === "signal";
}

function headerOf(value: string | string[] | undefined): string | undefined {
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

import {
  type ErrorContext,
  SglangAbortedError,
  SglangConnectionError,
  SglangError,
  SglangTimeoutError,
} from "./errors";

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** The undici request options that carry one attempt's timeout and cancellation. */
export interface AttemptRequestOptions {
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
  readonly signal?: AbortSignal;
}

/**
 * One attempt's cancellation. Timeouts are undici's own per-request timers: `headersTimeout` bounds
 * the wait for the reply (a non-streaming /generate sends headers only when generation ends) and
 * `bodyTimeout` every gap between body bytes (stream idleness). An AbortController exists only when
 * the caller passed a signal. undici runs timeouts on its coarse "fast timers" (about 1 s
 * resolution), fine for minute-scale RL timeouts. Measured, a controller + listener per request cost ~10 µs on a 60 µs
 * loopback round trip, most of the client's overhead budget.
 */
export class AttemptGuard {
  readonly #controller: AbortController | undefined;
  readonly #onAbort: (() => void) | undefined;
  isCallerAbort = false;

  constructor(
    private readonly signal: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    if (signal) {
      const controller = new AbortController();
      const onAbort = () => {
        this.isCallerAbort = true;
        controller.abort(signal.reason);
      };
      this.#controller = controller;
      this.#onAbort = onAbort;
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  }

  /** Options to spread into `pool.request`. */
  get requestOptions(): AttemptRequestOptions {
    const t = this.timeoutMs;
    return this.#controller
      ? { headersTimeout: t, bodyTimeout: t, signal: this.#controller.signal }
      : { headersTimeout: t, bodyTimeout: t };
  }

  dispose(): void {
    if (this.#onAbort) this.signal?.removeEventListener("abort", this.#onAbort);
  }

  /** Maps anything thrown during the attempt onto a typed SglangError. */
  classify(error: unknown, context: ErrorContext): SglangError {
    if (this.isCallerAbort) {
      return new SglangAbortedError("request aborted by the caller", "signal", undefined, context);
    }
    const code = errorCode(error);
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      return new SglangTimeoutError(
        `no answer from ${context.upstream} within ${this.timeoutMs} ms (${code})`,
        this.timeoutMs,
        { ...context, cause: error },
      );
    }
    return toSglangError(error, context);
  }
}

/**
 * Anything thrown by undici that is not already typed is a transport failure (refused, reset,
 * socket closed mid-body, connect timeout): a retryable connection error.
 */
export function toSglangError(error: unknown, context: ErrorContext): SglangError {
  if (error instanceof SglangError) return error;
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new SglangConnectionError(
    `connection to ${context.upstream} failed${code ? ` (${code})` : ""}: ${detail}`,
    { ...context, cause: error },
  );
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

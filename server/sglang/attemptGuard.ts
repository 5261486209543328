import {
  type ErrorContext,
  SglangAbortedError,
  SglangConnectionError,
  SglangError,
  SglangTimeoutError,
} from "./errors";

/**
 * One attempt's cancellation: merges the caller's AbortSignal with the attempt timeout into one
 * controller for undici, and remembers which of the two fired so a thrown error can be classified.
 * A plain setTimeout (cleared on dispose) rather than AbortSignal.timeout: the latter keeps a timer
 * alive for the whole timeout even after the request is done, which piles up over 10k requests.
 */
export class AttemptGuard {
  readonly controller = new AbortController();
  firedBy: "timeout" | "signal" | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timeoutMs = 0;
  readonly #onAbort = () => this.#fire("signal");

  constructor(
    private readonly signal: AbortSignal | undefined,
    timeoutMs: number,
  ) {
    if (signal?.aborted) this.#fire("signal");
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.restartTimer(timeoutMs);
  }

  get aborted(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)arms the timer; streams call it on every chunk so it measures idleness. */
  restartTimer(timeoutMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timeoutMs = timeoutMs;
    if (timeoutMs > 0 && this.firedBy === undefined) {
      this.#timer = setTimeout(() => this.#fire("timeout"), timeoutMs);
    }
  }

  /** Cancels the attempt from our side (consumer stopped reading). */
  cancel(): void {
    this.controller.abort(new Error("request cancelled by the client"));
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.signal?.removeEventListener("abort", this.#onAbort);
  }

  /** Maps anything thrown during the attempt onto a typed SglangError. */
  classify(error: unknown, context: ErrorContext): SglangError {
    if (this.firedBy === "signal") {
      return new SglangAbortedError("request aborted by the caller", "signal", undefined, context);
    }
    if (this.firedBy === "timeout") {
      return new SglangTimeoutError(
        `no answer from ${context.upstream} within ${this.#timeoutMs} ms`,
        this.#timeoutMs,
        context,
      );
    }
    return toSglangError(error, context);
  }

  #fire(by: "timeout" | "signal"): void {
    if (this.firedBy !== undefined) return;
    this.firedBy = by;
    this.controller.abort(by === "signal" ? this.signal?.reason : new Error("attempt timed out"));
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

import type { GenerateResult } from "./normalize";

/** Where a failure happened: the upstream base URL and the rid of the failing attempt. */
export interface ErrorContext {
  readonly upstream?: string;
  readonly rid?: string;
  /** Attempts made before giving up (1 = no retry). */
  readonly attempts?: number;
  readonly cause?: unknown;
}

/** Base class of every error the SGLang client throws; `isRetryable` drives the retry loop. */
export abstract class SglangError extends Error {
  abstract readonly isRetryable: boolean;
  readonly upstream: string | undefined;
  readonly rid: string | undefined;
  attempts: number;

  constructor(message: string, context: ErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.upstream = context.upstream;
    this.rid = context.rid;
    this.attempts = context.attempts ?? 1;
  }
}

/** TCP-level failure: refused, reset, dropped mid-response, connect timeout. */
export class SglangConnectionError extends SglangError {
  readonly isRetryable = true;
}

/** The attempt exceeded the client's total (or stream idle) timeout. */
export class SglangTimeoutError extends SglangError {
  readonly isRetryable = true;
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, context: ErrorContext = {}) {
    super(message, context);
    this.timeoutMs = timeoutMs;
  }
}

/** A non-2xx reply; 408, 429 and 5xx are retried, other 4xx never. */
export class SglangHttpError extends SglangError {
  readonly status: number;
  /** The raw body text (possibly empty), kept for the report. */
  readonly body: string;
  /** The message from the body when it had one of the spec's error shapes. */
  readonly serverMessage: string | undefined;
  /** From a `Retry-After` header, in milliseconds; a floor for the next backoff. */
  retryAfterMs: number | undefined;
  constructor(status: number, body: string, serverMessage: string | undefined, ctx: ErrorContext) {
    super(
      `SGLang ${ctx.upstream ?? ""} answered ${status}${serverMessage ? `: ${serverMessage}` : ""}`,
      ctx,
    );
    this.status = status;
    this.body = body.length > 2000 ? `${body.slice(0, 2000)}…` : body;
    this.serverMessage = serverMessage;
  }
  get isRetryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** A 200 whose body is not the spec's shape. `isNonJson` bodies are retried (proxies, truncation). */
export class SglangDecodingError extends SglangError {
  readonly isNonJson: boolean;
  readonly body: string;
  constructor(message: string, isNonJson: boolean, body: string, context: ErrorContext = {}) {
    super(message, context);
    this.isNonJson = isNonJson;
    this.body = body.length > 2000 ? `${body.slice(0, 2000)}…` : body;
  }
  get isRetryable(): boolean {
    return this.isNonJson;
  }
}

/** The prompt (or prompt + max_new_tokens) does not fit the context window: shorten, do not retry. */
export class SglangContextLengthError extends SglangError {
  readonly isRetryable = false;
  readonly serverMessage: string;
  constructor(serverMessage: string, context: ErrorContext = {}) {
    super(`context length exceeded: ${serverMessage}`, context);
    this.serverMessage = serverMessage;
  }
}

/**
 * The request was aborted: by the caller's AbortSignal (`origin: "signal"`) or by the server
 * (`origin: "server"`, a 200 whose finish_reason is abort). `partial` holds what was generated.
 */
export class SglangAbortedError extends SglangError {
  readonly isRetryable = false;
  readonly origin: "signal" | "server";
  readonly partial: GenerateResult | undefined;
  constructor(
    message: string,
    origin: "signal" | "server",
    partial: GenerateResult | undefined,
    context: ErrorContext = {},
  ) {
    super(message, context);
    this.origin = origin;
    this.partial = partial;
  }
  /** True for SGLang's special "Abort before prefill": nothing ran, the prompt is intact. */
  get isBeforePrefill(): boolean {
    const fr = this.partial?.finishReason;
    return fr?.type === "abort" && fr.message === "Abort before prefill";
  }
}

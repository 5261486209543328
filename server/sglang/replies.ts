import { errorMessageOf, isContextLengthMessage } from "../../src/core/wire/sglang";
import {
  type ErrorContext,
  SglangAbortedError,
  SglangContextLengthError,
  SglangDecodingError,
  type SglangError,
  SglangHttpError,
} from "./errors";
import { type GenerateResult, normalizeResponse } from "./normalize";
import { parseRetryAfterMs } from "./retryPolicy";

/** The typed error for a non-2xx reply: context-length 400s are singled out (docs/sglang.md). */
export function errorFromStatus(
  status: number,
  body: string,
  retryAfter: string | undefined,
  context: ErrorContext,
): SglangError {
  const message = errorMessageOf(tryJson(body));
  if (status === 400 && message !== undefined && isContextLengthMessage(message)) {
    return new SglangContextLengthError(message, context);
  }
  const error = new SglangHttpError(status, body, message, context);
  error.retryAfterMs = parseRetryAfterMs(retryAfter);
  return error;
}

/** Parses a 200 body; a non-JSON body is a retryable decoding error (truncation, proxy pages). */
export function parseJson(body: string, context: ErrorContext): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new SglangDecodingError(
      `${context.upstream}: 200 reply is not JSON: ${JSON.stringify(body.slice(0, 120))}`,
      true,
      body,
      context,
    );
  }
}

/**
 * Turns one reply item into a result, or throws: a malformed item is a decoding error, an in-band
 * `{"error":...}` (streams) an HTTP-shaped error, and a finish_reason of abort an aborted error
 * carrying the partial output, so an abort is never mistaken for a normal turn.
 */
export function resultFromJson(
  json: unknown,
  where: string,
  context: ErrorContext,
  isStreamChunk = false,
): GenerateResult {
  const inBandError = isStreamChunk ? errorMessageOf(json) : undefined;
  if (inBandError !== undefined) {
    if (isContextLengthMessage(inBandError)) {
      throw new SglangContextLengthError(inBandError, context);
    }
    throw new SglangHttpError(200, JSON.stringify(json), inBandError, context);
  }
  const outcome = normalizeResponse(json, where, isStreamChunk);
  if (!outcome.ok) {
    throw new SglangDecodingError(outcome.error, false, JSON.stringify(json) ?? "", context);
  }
  return outcome.value;
}

/** The typed abort error for a result whose finish_reason is abort, else undefined. */
function abortErrorOf(
  result: GenerateResult,
  context: ErrorContext,
): SglangAbortedError | undefined {
  const fr = result.finishReason;
  if (fr?.type !== "abort") return undefined;
  const message = `SGLang aborted the request: ${fr.message ?? "no message"}`;
  return new SglangAbortedError(message, "server", result, context);
}

/** Throws the typed abort error when a finished result's finish_reason is abort. */
export function rejectAbort(result: GenerateResult, context: ErrorContext): GenerateResult {
  const error = abortErrorOf(result, context);
  if (error) throw error;
  return result;
}

function tryJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

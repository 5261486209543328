import type { CallRetry } from "../../src/core/trajectory/types";
import { AttemptGuard } from "./attemptGuard";
import { SglangConnectionError } from "./errors";
import { buildGenerateBody, type GenerateRequest } from "./generateBody";
import type { ClientGenerateResult } from "./normalize";
import { errorFromStatus, parseJson, rejectAbort, resultFromJson } from "./replies";
import { newRid } from "./rid";
import { sseData } from "./sse";
import { StreamFold, type StreamStep } from "./streamFold";
import { type Attempt, contextOf, headerOf, type Transport } from "./transport";

/** One step of a streamed turn: what it added, and the turn so far on demand. */
export interface ClientStreamStep extends StreamStep {
  /** The turn so far, copied (work linear in the turn): call it at the end, not per step. */
  result(): ClientGenerateResult;
}

/**
 * Streaming /generate: yields what each chunk adds (cumulative and delta servers alike, docs/sglang.md),
 * in work linear in the turn's tokens; the last step has a finish reason. Failures before the first snapshot are retried; later ones throw,
 * since a retry would sample a different continuation. Stopping iteration (break/return) aborts
 * the request; a consumer that neither finishes nor stops keeps its concurrency slot.
 */
export async function* generateStream(
  t: Transport,
  request: GenerateRequest,
  signal: AbortSignal | undefined,
  preferred?: string,
): AsyncGenerator<ClientStreamStep, void, undefined> {
  await t.acquire(signal);
  try {
    let rid = request.rid ?? newRid();
    const failed: CallRetry[] = [];
    for (let number = 1; ; number++) {
      const upstream = t.set.pick(number === 1 ? preferred : undefined);
      const attempt: Attempt = { upstream, rid, number, failed };
      let yielded = false;
      try {
        for await (const snapshot of streamAttempt(t, request, attempt, signal)) {
          yielded = true;
          yield snapshot;
        }
        return;
      } catch (error) {
        const failure = t.classifyFailure(error, attempt);
        if (yielded || !(await t.shouldRetry(failure, attempt, signal, failed))) throw failure;
      }
      rid = newRid();
    }
  } finally {
    t.semaphore.release();
  }
}

async function* streamAttempt(
  t: Transport,
  request: GenerateRequest,
  attempt: Attempt,
  signal: AbortSignal | undefined,
): AsyncGenerator<ClientStreamStep> {
  const ctx = contextOf(attempt);
  const where = `${attempt.upstream.url}/generate (stream)`;
  const guard = new AttemptGuard(signal, t.streamIdleTimeoutMs);
  t.track(attempt, true);
  let isFinished = false;
  let body: { destroy(): unknown } | undefined;
  try {
    const res = await attempt.upstream.pool.request({
      method: "POST",
      path: `${attempt.upstream.basePath}/generate`,
      headers: t.headers,
      body: JSON.stringify(buildGenerateBody(request, attempt.rid, true)),
      ...guard.requestOptions,
    });
    body = res.body;
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw errorFromStatus(res.statusCode, text, headerOf(res.headers["retry-after"]), ctx);
    }
    const fold = new StreamFold();
    const result = () => ({
      ...fold.result(),
      upstream: attempt.upstream.url,
      attempts: attempt.number,
      retries: [...attempt.failed],
    });
    for await (const data of sseData(res.body)) {
      if (data === "[DONE]") break;
      const step = fold.add(resultFromJson(parseJson(data, ctx), where, ctx, true));
      if (step.finishReason !== null) {
        isFinished = true;
        rejectAbort(fold.result(), ctx);
      }
      yield { ...step, result };
    }
    t.set.reportSuccess(attempt.upstream);
    if (!isFinished) {
      throw new SglangConnectionError(`${where}: stream ended without a final finish_reason`, ctx);
    }
  } catch (error) {
    throw guard.classify(error, ctx);
  } finally {
    guard.dispose();
    t.track(attempt, false);
    if (!isFinished) {
      // Closing the socket aborts server-side only after ~2 s (docs/sglang.md); tell the server now.
      body?.destroy();
      await t.sendAbort(attempt.upstream, attempt.rid);
    }
  }
}

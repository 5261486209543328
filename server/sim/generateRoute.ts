import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { SimContext } from "./context";
import { completeItem, outputText } from "./engine";
import { createExplicitModel } from "./explicitModel";
import { createLogprobModel, type LogprobModel } from "./logprobs";
import {
  type GenerateCall,
  type GenerateItem,
  normalizeRequest,
  SimRequestError,
} from "./normalizeRequest";
import { playOut } from "./playback";
import { describeSchemaError, generateBodySchema } from "./requestSchema";
import {
  abortBeforePrefillBody,
  errorResponseBody,
  type ItemTrace,
  itemBody,
  semanticErrorBody,
} from "./responses";

/** Hono bindings when served by @hono/node-server; absent when a test calls `app.fetch`. */
export interface SimBindings {
  readonly incoming?: IncomingMessage;
}

export type SimHonoContext = Context<{ Bindings: SimBindings }>;

/** A JSON response with an exact status, bypassing Hono's typed helpers for free-form bodies. */
export function jsonResponse(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Reads a JSON body; unparsable JSON becomes SGLang's 400 ErrorResponse. */
export async function readJson(
  c: SimHonoContext,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const raw = await c.req.text();
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      response: jsonResponse(
        400,
        errorResponseBody(400, "Bad Request", `JSON decode error: ${detail}`),
      ),
    };
  }
}

/** The heuristic logprob model, or the explicit distribution with `logitModel`. */
function modelFor(
  ctx: SimContext,
  item: GenerateItem,
  seed: number,
  context: readonly number[],
  batchSize: number,
): LogprobModel {
  const { options } = ctx;
  const perturbation = {
    noise: options.logprobNoise,
    driftAfterTokens: options.logprobDriftAfterTokens,
    batchNoise: options.batchNoise,
    batchSize,
  };
  const { temperature, topP, topK, minP } = item.sampling;
  if (!options.logitModel) {
    return createLogprobModel(ctx.tokenizer, seed, temperature, context, perturbation);
  }
  return createExplicitModel(ctx.tokenizer, seed, temperature, context, perturbation, {
    truncation: { topP, topK, minP },
    renormalizeKept: options.renormalizeKept,
  });
}

function traceCall(ctx: SimContext, call: GenerateCall): ItemTrace[] {
  return call.items.map((item) => {
    const completion = completeItem(ctx.tokenizer, item);
    const promptLength = item.promptIds.length;
    // The radix cache never serves the last prompt token, nor (with logprobs) past logprob_start_len.
    const cap = Math.min(
      promptLength - 1,
      item.returnLogprob ? item.logprobStartLen : promptLength,
    );
    const cachedTokens = Math.max(0, Math.min(ctx.cache.match(item.promptIds), cap));
    // Causal logprobs: keyed by each token's prefix (prompt + output), so scoring the finished
    // sequence later as input gives back exactly the logprobs it was sampled with.
    const seed = item.sampling.seed ?? ctx.options.seed;
    const context = [...item.promptIds, ...completion.outputIds];
    const model = modelFor(ctx, item, seed, context, call.items.length);
    const outputLogprobs = completion.outputIds.map((id, i) => model.score(promptLength + i, id));
    const routing = { shape: ctx.options.routedExperts, seed };
    return {
      item,
      completion,
      cachedTokens,
      model,
      outputLogprobs,
      startedAt: Date.now(),
      routing,
    };
  });
}

async function finalBodies(ctx: SimContext, traces: readonly ItemTrace[], signal: AbortSignal) {
  const bodies: unknown[] = traces.map(() => null);
  for await (const event of playOut(ctx, traces, signal)) {
    const trace = traces[event.index];
    if (!trace) continue;
    if (event.kind === "queued-abort") {
      bodies[event.index] = abortBeforePrefillBody(trace.item.rid);
    } else if (event.finish !== null) {
      const ids = trace.completion.outputIds.slice(0, event.shown);
      const text = outputText(ctx.tokenizer, ids, event.finish, trace.item.sampling);
      bodies[event.index] = itemBody(ctx.tokenizer, trace, {
        shown: event.shown,
        from: 0,
        text,
        finish: event.finish,
        hasInputLogprobs: true,
      });
    }
  }
  return bodies;
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

function sseEvent(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

function streamResponse(
  ctx: SimContext,
  call: GenerateCall,
  traces: readonly ItemTrace[],
  requestSignal: AbortSignal,
): Response {
  const cancelled = new AbortController();
  const signal = AbortSignal.any([requestSignal, cancelled.signal]);
  const isDelta = ctx.options.streamMode === "delta";
  const decoders = traces.map(() => new TextDecoder());
  const texts = traces.map(() => "");
  const sentTokens = traces.map(() => 0);
  const sentChars = traces.map(() => 0);
  const encoder = new TextEncoder();
  const withIndex = (index: number, body: object) => (call.isBatch ? { index, ...body } : body);

  const chunkFor = (
    index: number,
    trace: ItemTrace,
    shown: number,
    finish: ItemTrace["completion"]["finish"] | null,
  ) => {
    const { tokenizer } = ctx;
    const ids = trace.completion.outputIds;
    // Only the tokens this chunk adds are decoded; a delta chunk sends only their text, so a step
    // never copies the turn so far (the final chunk decodes the whole output once).
    let added = "";
    for (let i = sentTokens[index] ?? 0; i < shown; i++) {
      const id = ids[i] as number;
      if (trace.item.sampling.isSkippingSpecialTokens && tokenizer.isSpecial(id)) continue;
      added += decoders[index]?.decode(tokenizer.tokenBytes(id), { stream: true }) ?? "";
    }
    if (!isDelta) texts[index] += added;
    const from = isDelta ? (sentTokens[index] ?? 0) : 0;
    let text: string;
    if (finish !== null) {
      const whole = outputText(tokenizer, ids.slice(0, shown), finish, trace.item.sampling);
      text = isDelta ? whole.slice(Math.min(sentChars[index] ?? 0, whole.length)) : whole;
    } else {
      text = isDelta ? added : (texts[index] ?? "");
    }
    const body = itemBody(tokenizer, trace, {
      shown,
      from,
      text,
      finish,
      hasInputLogprobs: !isDelta || from === 0,
    });
    sentTokens[index] = shown;
    sentChars[index] = (sentChars[index] ?? 0) + added.length;
    return body;
  };

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (value: unknown) => {
        if (!cancelled.signal.aborted) controller.enqueue(encoder.encode(sseEvent(value)));
      };
      try {
        for await (const event of playOut(ctx, traces, signal)) {
          const trace = traces[event.index];
          if (!trace) continue;
          if (event.kind === "queued-abort") {
            send(withIndex(event.index, abortBeforePrefillBody(trace.item.rid)));
          } else {
            send(withIndex(event.index, chunkFor(event.index, trace, event.shown, event.finish)));
          }
        }
      } catch (error) {
        send({ error: { message: error instanceof Error ? error.message : String(error) } });
      }
      if (!cancelled.signal.aborted) {
        send("[DONE]");
        controller.close();
      }
    },
    cancel() {
      cancelled.abort();
    },
  });
  return new Response(stream, { status: 200, headers: SSE_HEADERS });
}

function droppedConnection(c: SimHonoContext): Response {
  const socket = c.env?.incoming?.socket;
  if (socket) {
    socket.destroy();
    return new Response(null);
  }
  // In-process callers have no socket: a body that errors is the closest equivalent.
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error(new Error("simulated dropped connection"));
      },
    }),
  );
}

/** Never answers; the items stay "waiting" (so `/flush_cache` refuses) until the client leaves. */
function stall(ctx: SimContext, call: GenerateCall, signal: AbortSignal): Promise<Response> {
  const waiting = call.items.map((item) => ({ rid: item.rid, isAborted: false, wake: () => {} }));
  for (const item of waiting) ctx.registry.add(item);
  return new Promise((resolve) => {
    const release = () => {
      for (const item of waiting) ctx.registry.remove(item);
      resolve(new Response(null, { status: 499 }));
    };
    if (signal.aborted || ctx.closing.aborted) return release();
    signal.addEventListener("abort", release, { once: true });
    ctx.closing.addEventListener("abort", release, { once: true });
  });
}

function truncate(value: unknown): string {
  const text = JSON.stringify(value);
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

/** The first prompt's ids (a batch's first row), what the request's family is read from. */
function firstPromptIds(inputIds: readonly number[] | readonly number[][] | null | undefined) {
  const first = inputIds?.[0];
  if (first === undefined) return [];
  return Array.isArray(first) ? first : (inputIds as readonly number[]);
}

/** `POST|PUT /generate`: validate like SGLang, maybe inject a fault, then play the policy's reply. */
export async function handleGenerate(simCtx: SimContext, c: SimHonoContext): Promise<Response> {
  const json = await readJson(c);
  if (!json.ok) return json.response;
  const parsed = generateBodySchema.safeParse(json.value);
  if (!parsed.success) {
    const message = describeSchemaError(parsed.error, "GenerateReqInput");
    return jsonResponse(400, errorResponseBody(400, "Bad Request", message));
  }
  // This request's tokenizer, and so its family's dialect (the default one for a text prompt).
  const tokenizer = await simCtx.pickTokenizer(firstPromptIds(parsed.data.input_ids));
  const ctx: SimContext = tokenizer === simCtx.tokenizer ? simCtx : { ...simCtx, tokenizer };
  let call: GenerateCall;
  try {
    call = normalizeRequest(parsed.data, {
      tokenizer: ctx.tokenizer,
      contextLength: ctx.options.contextLength,
      defaultPolicy: ctx.options.policy,
    });
  } catch (error) {
    if (error instanceof SimRequestError)
      return jsonResponse(400, semanticErrorBody(error.message));
    throw error;
  }
  const signal = c.req.raw.signal;
  const fault = ctx.pickFault();
  switch (fault) {
    case "503":
      return jsonResponse(
        503,
        errorResponseBody(503, "503", "Simulated overload: the request queue is full."),
      );
    case "500":
      return jsonResponse(500, errorResponseBody(500, "500", "Simulated internal server error."));
    case "drop":
      return droppedConnection(c);
    case "stall":
      return stall(ctx, call, signal);
    case "abort-before-prefill": {
      const bodies = call.items.map((item, index) => {
        const body = abortBeforePrefillBody(item.rid);
        return call.isBatch && call.isStream ? { index, ...body } : body;
      });
      if (call.isStream) {
        const events = `${bodies.map(sseEvent).join("")}${sseEvent("[DONE]")}`;
        return new Response(events, { status: 200, headers: SSE_HEADERS });
      }
      return jsonResponse(200, call.isBatch ? bodies : bodies[0]);
    }
    case "malformed":
    case "none":
      break;
  }
  const traces = traceCall(ctx, call);
  if (fault === "malformed") {
    const bodies = await finalBodies(ctx, traces, signal);
    const cut = truncate(call.isBatch ? bodies : bodies[0]);
    if (call.isStream) {
      return new Response(`data: ${cut}\n\n${sseEvent("[DONE]")}`, { headers: SSE_HEADERS });
    }
    return new Response(cut, { status: 200, headers: { "content-type": "application/json" } });
  }
  if (call.isStream) return streamResponse(ctx, call, traces, signal);
  const bodies = await finalBodies(ctx, traces, signal);
  return jsonResponse(200, call.isBatch ? bodies : bodies[0]);
}

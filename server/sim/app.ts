import { Hono } from "hono";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import type { SimContext } from "./context";
import { createFaultPicker } from "./faults";
import { handleGenerate, jsonResponse, readJson, type SimBindings } from "./generateRoute";
import { parseSimOptions, type SimOptions, type SimOptionsInput, simModelName } from "./options";
import { createPrefixCache } from "./prefixCache";
import { createRegistry } from "./registry";
import {
  abortBodySchema,
  describeSchemaError,
  detokenizeBodySchema,
  tokenizeBodySchema,
} from "./requestSchema";
import { errorResponseBody } from "./responses";
import { createTokenizerPicker } from "./tokenizerPick";

export interface SimApp {
  readonly app: Hono<{ Bindings: SimBindings }>;
  readonly options: SimOptions;
  readonly tokenizer: Tokenizer;
  /** Makes `/health` and `/health_generate` answer 503 (false) or 200 (true). */
  setHealthy(isHealthy: boolean): void;
  /** Releases stalled requests; call before closing the HTTP server. */
  close(): void;
}

const FLUSH_TEXT =
  "Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n";

function modelInfo(options: SimOptions) {
  return {
    model_path: simModelName(options.policy),
    tokenizer_path: options.tokenizer,
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: "default",
    has_image_understanding: false,
    has_audio_understanding: false,
    simulator: true,
    // Without --tokenizer each request is served in its ids' family: a rescore guard reads this.
    simulator_tokenizer_per_request: options.isTokenizerPerRequest,
  };
}

function serverInfo(ctx: SimContext) {
  const { options } = ctx;
  return {
    ...modelInfo(options),
    simulator: true,
    simulator_policy: options.policy,
    simulator_faults: options.faults,
    simulator_request_latency_ms: options.requestLatencyMs,
    simulator_token_latency_ms: options.tokenLatencyMs,
    simulator_logprobs: {
      logit_model: options.logitModel,
      renormalize_kept: options.renormalizeKept,
      noise: options.logprobNoise,
      drift_after_tokens: options.logprobDriftAfterTokens ?? null,
      batch_noise: options.batchNoise,
      routed_experts: options.routedExperts ?? null,
    },
    context_length: options.contextLength,
    max_total_num_tokens: options.contextLength * 16,
    max_req_input_len: options.contextLength - 1,
    tp_size: 1,
    dp_size: 1,
    random_seed: options.seed,
    chat_template: null,
    skip_tokenizer_init: false,
    incremental_streaming_output: options.streamMode === "delta",
    internal_states: [{ simulator: true, running_requests: ctx.registry.size }],
    version: "rollout-lens-simulator",
  };
}

function badRequest(message: string): Response {
  return jsonResponse(400, errorResponseBody(400, "Bad Request", message));
}

function registerRoutes(app: Hono<{ Bindings: SimBindings }>, ctx: SimContext): void {
  const { tokenizer, options } = ctx;
  const health = () => new Response(null, { status: ctx.isHealthy ? 200 : 503 });
  app.get("/health", health);
  app.get("/health_generate", health);
  for (const path of ["/get_model_info", "/model_info"]) {
    app.get(path, () => jsonResponse(200, modelInfo(options)));
  }
  for (const path of ["/get_server_info", "/server_info"]) {
    app.get(path, () => jsonResponse(200, serverInfo(ctx)));
  }
  app.get("/v1/models", () => {
    const name = simModelName(options.policy);
    return jsonResponse(200, {
      object: "list",
      data: [
        {
          id: name,
          object: "model",
          created: Math.floor(ctx.startedAt / 1000),
          owned_by: "rollout-lens-simulator",
          root: name,
          parent: null,
          max_model_len: options.contextLength,
        },
      ],
    });
  });
  app.on(["POST", "PUT"], "/generate", (c) => handleGenerate(ctx, c));
  app.post("/abort_request", async (c) => {
    const json = await readJson(c);
    if (!json.ok) return json.response;
    const parsed = abortBodySchema.safeParse(json.value);
    if (!parsed.success) return badRequest(describeSchemaError(parsed.error, "AbortReq"));
    if (parsed.data.abort_all) ctx.registry.abortAll();
    else ctx.registry.abortPrefix(parsed.data.rid ?? "");
    return new Response(null, { status: 200 });
  });
  app.on(["GET", "POST"], "/flush_cache", (c) => {
    const isBusy = ctx.registry.size > 0;
    if (!isBusy) ctx.cache.clear();
    return c.text(FLUSH_TEXT, isBusy ? 400 : 200);
  });
  for (const path of ["/tokenize", "/v1/tokenize"]) {
    app.post(path, async (c) => {
      const json = await readJson(c);
      if (!json.ok) return json.response;
      const parsed = tokenizeBodySchema.safeParse(json.value);
      if (!parsed.success) return badRequest(describeSchemaError(parsed.error, "TokenizeRequest"));
      const { prompt } = parsed.data;
      const max_model_len = options.contextLength;
      if (typeof prompt === "string") {
        const tokens = tokenizer.encode(prompt);
        return jsonResponse(200, { tokens, count: tokens.length, max_model_len });
      }
      const tokens = prompt.map((p) => tokenizer.encode(p));
      return jsonResponse(200, { tokens, count: tokens.map((t) => t.length), max_model_len });
    });
  }
  for (const path of ["/detokenize", "/v1/detokenize"]) {
    app.post(path, async (c) => {
      const json = await readJson(c);
      if (!json.ok) return json.response;
      const parsed = detokenizeBodySchema.safeParse(json.value);
      if (!parsed.success)
        return badRequest(describeSchemaError(parsed.error, "DetokenizeRequest"));
      const skip = parsed.data.skip_special_tokens ?? true;
      const decode = (ids: readonly number[]) =>
        tokenizer.decode(skip ? ids.filter((id) => !tokenizer.isSpecial(id)) : ids);
      const { tokens } = parsed.data;
      const rows = tokens.map((row) => (Array.isArray(row) ? row : undefined));
      const text = rows.every((row) => row !== undefined)
        ? rows.map((row) => decode(row))
        : decode(tokens.filter((t) => typeof t === "number"));
      return jsonResponse(200, { text });
    });
  }
  app.notFound(() => jsonResponse(404, { detail: "Not Found" }));
  app.onError((error) =>
    jsonResponse(500, errorResponseBody(500, "500", `Simulator error: ${error.message}`)),
  );
}

/** Builds the simulator (an SGLang look-alike) in-process; tests call `app.fetch` without a port. */
export async function createSimApp(input: SimOptionsInput = {}): Promise<SimApp> {
  const options = parseSimOptions(input);
  const tokenizer = await loadTokenizer(options.tokenizer);
  const closing = new AbortController();
  const ctx: SimContext = {
    options,
    tokenizer,
    pickTokenizer: createTokenizerPicker({
      tokenizer,
      tokenizerName: options.tokenizer,
      isForced: !options.isTokenizerPerRequest,
    }),
    cache: createPrefixCache(),
    registry: createRegistry(),
    pickFault: createFaultPicker(options.faults),
    closing: closing.signal,
    startedAt: Date.now(),
    isHealthy: true,
  };
  const app = new Hono<{ Bindings: SimBindings }>();
  registerRoutes(app, ctx);
  return {
    app,
    options,
    tokenizer,
    setHealthy(isHealthy) {
      ctx.isHealthy = isHealthy;
    },
    close: () => closing.abort(),
  };
}

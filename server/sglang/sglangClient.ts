import {
  type ModelInfoWire,
  type ModelsListWire,
  modelInfoSchema,
  modelsListSchema,
  type ServerInfoWire,
  serverInfoSchema,
} from "../../src/core/wire/sglang";
import { SglangConnectionError, SglangDecodingError } from "./errors";
import {
  buildBatchBody,
  buildGenerateBody,
  checkRequest,
  type GenerateRequest,
} from "./generateBody";
import { type ClientStreamStep, generateStream } from "./generateStream";
import type { ClientGenerateResult } from "./normalize";
import { parseJson, rejectAbort, resultFromJson } from "./replies";
import {
  checkContextLength,
  contextLengthOf,
  type RescoreRequest,
  type RescoreResult,
  rescoreGenerateRequest,
  rescoreResultOf,
} from "./rescore";
import { type Attempt, contextOf, type SglangClientOptions, Transport } from "./transport";

export type { GenerateRequest } from "./generateBody";
export type { ClientStreamStep } from "./generateStream";
export type { ClientGenerateResult } from "./normalize";
export type { SglangClientOptions } from "./transport";

export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** Options of one generation call. */
export interface GenerateCallOptions extends CallOptions {
  /**
   * Base URL of the upstream to run on while it is healthy (e.g. the one that already holds the
   * conversation's prefix in its cache); least-in-flight otherwise, and for retries.
   */
  readonly preferUpstream?: string;
}

export interface UpstreamHealth {
  readonly url: string;
  readonly isHealthy: boolean;
}

/** The SGLang native-API client: pooled, capped, retried, abortable, spread over upstreams. */
export class SglangClient {
  readonly #t: Transport;

  constructor(options: SglangClientOptions) {
    this.#t = new Transport(options);
  }

  /** Base URLs of the upstreams, in the order given. */
  get upstreamUrls(): readonly string[] {
    return this.#t.set.upstreams.map((u) => u.url);
  }

  /** Live in-flight counts and health, for status pages and tests. */
  upstreamStates(): readonly (UpstreamHealth & { readonly inFlight: number })[] {
    return this.#t.set.upstreams.map((u) => ({
      url: u.url,
      isHealthy: u.isHealthy,
      inFlight: u.inFlight,
    }));
  }

  /** POST /generate for one prompt; resolves to the finished generation or throws an SglangError. */
  generate(
    request: GenerateRequest,
    options: GenerateCallOptions = {},
  ): Promise<ClientGenerateResult> {
    checkRequest(request);
    const signal = options.signal;
    const run = async (attempt: Attempt): Promise<ClientGenerateResult> => {
      const body = JSON.stringify(buildGenerateBody(request, attempt.rid, false));
      const reply = await this.#t.exchange(attempt, "POST", "/generate", body, signal);
      const ctx = contextOf(attempt);
      const result = resultFromJson(parseJson(reply, ctx), `${attempt.upstream.url}/generate`, ctx);
      return {
        ...rejectAbort(result, ctx),
        upstream: attempt.upstream.url,
        attempts: attempt.number,
        retries: [...attempt.failed],
      };
    };
    return this.#t.withRetries(request.rid, signal, run, options.preferUpstream);
  }

  /**
   * Streaming /generate: what each chunk adds, the last with a finish reason (see generateStream).
   * Always finish the loop or break out of it: that releases the slot and aborts server-side.
   */
  generateStream(
    request: GenerateRequest,
    options: GenerateCallOptions = {},
  ): AsyncGenerator<ClientStreamStep, void, undefined> {
    checkRequest(request);
    return generateStream(this.#t, request, options.signal, options.preferUpstream);
  }

  /** GET /health on every upstream (updating their health); 200 means healthy. */
  health(): Promise<readonly UpstreamHealth[]> {
    const set = this.#t.set;
    return Promise.all(
      set.upstreams.map(async (u) => ({ url: u.url, isHealthy: await set.probe(u) })),
    );
  }

  /** Model paths; tries `/model_info`, then the older `/get_model_info`. */
  modelInfo(options: CallOptions = {}): Promise<ModelInfoWire> {
    const paths = ["/model_info", "/get_model_info"];
    return this.#t.getWithFallback(paths, modelInfoSchema, options.signal);
  }

  /** Server args and scheduler limits; tries `/server_info`, then `/get_server_info`. */
  serverInfo(options: CallOptions = {}): Promise<ServerInfoWire> {
    const paths = ["/server_info", "/get_server_info"];
    return this.#t.getWithFallback(paths, serverInfoSchema, options.signal);
  }

  /** `GET /v1/models`; `data[0].max_model_len` is the context window in tokens. */
  models(options: CallOptions = {}): Promise<ModelsListWire> {
    return this.#t.getWithFallback(["/v1/models"], modelsListSchema, options.signal);
  }

  /**
   * Rescores `inputIds` (server/sglang/rescore.ts): checks the context length first (asked once
   * per client), then one /generate through the same retries, upstreams and abort as generate().
   */
  async rescore(request: RescoreRequest, options: CallOptions = {}): Promise<RescoreResult> {
    this.#serverFacts ??= this.#askServerFacts(options.signal);
    const facts = await this.#serverFacts;
    // Nothing learned (upstreams down?): ask again next time rather than never.
    if (facts.contextLength === undefined && facts.model === undefined)
      this.#serverFacts = undefined;
    checkContextLength(request.inputIds.length, facts.contextLength);
    const result = await this.generate(rescoreGenerateRequest(request), options);
    return rescoreResultOf(request, result, facts.model);
  }

  /**
   * Rescores several sequences in one batch `/generate` (docs/sglang.md; the bisect lab's co-tenants):
   * one string rid, which SGLang expands to `<rid>_<i>`, so one /abort_request (by prefix) stops
   * them all. Every item must come back, or the call fails; retried as a whole like generate().
   */
  async rescoreBatch(
    requests: readonly RescoreRequest[],
    options: CallOptions = {},
  ): Promise<RescoreResult[]> {
    if (requests.length === 0) throw new RangeError("rescoreBatch: requests is empty");
    this.#serverFacts ??= this.#askServerFacts(options.signal);
    const facts = await this.#serverFacts;
    const generates = requests.map((r) => {
      checkContextLength(r.inputIds.length, facts.contextLength);
      const g = rescoreGenerateRequest(r);
      checkRequest(g);
      return g;
    });
    const signal = options.signal;
    const run = async (attempt: Attempt): Promise<RescoreResult[]> => {
      const body = JSON.stringify(buildBatchBody(generates, attempt.rid));
      const reply = await this.#t.exchange(attempt, "POST", "/generate", body, signal);
      const ctx = contextOf(attempt);
      const json = parseJson(reply, ctx);
      const where = `${attempt.upstream.url}/generate`;
      if (!Array.isArray(json) || json.length !== requests.length) {
        const got = Array.isArray(json) ? `${json.length} items` : "a non-array";
        throw new SglangDecodingError(
          `${where}: a batch of ${requests.length} got ${got}`,
          false,
          "",
          ctx,
        );
      }
      return json.map((item: unknown, i) => {
        const result = rejectAbort(resultFromJson(item, `${where} item ${i}`, ctx), ctx);
        const full = {
          ...result,
          upstream: attempt.upstream.url,
          attempts: attempt.number,
          retries: [...attempt.failed],
        };
        return rescoreResultOf(requests[i] as RescoreRequest, full, facts.model);
      });
    };
    return this.#t.withRetries(undefined, signal, run);
  }

  #serverFacts: Promise<{ contextLength?: number; model?: string }> | undefined;

  async #askServerFacts(signal?: AbortSignal): Promise<{ contextLength?: number; model?: string }> {
    const [server, listed] = await Promise.all([
      this.serverInfo({ signal }).catch(() => undefined),
      this.models({ signal }).catch(() => undefined),
    ]);
    const model = typeof server?.model_path === "string" ? server.model_path : listed?.data[0]?.id;
    return { contextLength: contextLengthOf(server, listed), model };
  }

  /**
   * POST /abort_request for `rid`: to the upstream running it when this client sent it, else to
   * every upstream. SGLang answers 200 even for unknown rids. Throws only if no upstream answered.
   */
  async abort(rid: string): Promise<void> {
    const owner = this.#t.ridUpstream.get(rid);
    const targets = owner ? [owner] : this.#t.set.upstreams;
    const outcomes = await Promise.all(targets.map((u) => this.#t.sendAbort(u, rid)));
    if (!outcomes.some((ok) => ok)) {
      throw new SglangConnectionError(`/abort_request for ${rid} reached no upstream`, { rid });
    }
  }

  /** Stops health probes and closes every connection. */
  close(): Promise<void> {
    return this.#t.set.close();
  }
}

import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientFixture } from "../../test-support/sglang/clientFixture";
import {
  CONTEXT_SUM_MESSAGE,
  DETAIL_422,
  ERROR_RESPONSE_400,
  EXAMPLE_A_REPLY,
  EXAMPLE_A_REQUEST,
  EXAMPLE_B_REPLY,
  EXAMPLE_E_ABORT_BEFORE_PREFILL,
  EXAMPLE_E_CONTEXT,
  EXAMPLE_E_TOP_P,
  OVERLOAD_503,
} from "../../test-support/sglang/specExamples";
import {
  dropConnection,
  generateReply,
  ridOf,
  sendJson,
} from "../../test-support/sglang/stubUpstream";
import {
  SglangAbortedError,
  SglangConnectionError,
  SglangContextLengthError,
  SglangDecodingError,
  type SglangError,
  SglangHttpError,
  SglangTimeoutError,
} from "./errors";
import { RID_LENGTH } from "./rid";

const fixture = clientFixture();
const { stub, client } = fixture;

async function failure(promise: Promise<unknown>): Promise<SglangError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error("expected the call to fail");
  return outcome as SglangError; // every client rejection is an SglangError; asserted per test
}

const PROMPT = EXAMPLE_A_REQUEST.input_ids;
const SAMPLING = EXAMPLE_A_REQUEST.sampling_params;

afterEach(() => fixture.cleanup());

describe("generate: request shape", () => {
  it("sends Example A's fields, with logprob_start_len defaulting to len(input_ids)-1", async () => {
    const s = await stub((_req, res) => sendJson(res, 200, EXAMPLE_A_REPLY));
    const result = await client(s.url).generate({ inputIds: PROMPT, samplingParams: SAMPLING });
    const body = s.bodies("/generate")[0];
    expect(body).toMatchObject({ ...EXAMPLE_A_REQUEST, rid: expect.any(String) });
    expect(ridOf(body)).toMatch(new RegExp(`^rl[a-z2-7]{${RID_LENGTH - 2}}$`));
    expect(body).not.toHaveProperty("top_logprobs_num");
    expect(result).toMatchObject({
      rid: "ep42-t0",
      text: "Hi there!<|im_end|>",
      outputIds: [13048, 1052, 0, 151645],
      outputLogprobs: [-0.412, -0.0513, -0.307, -0.0021],
      inputLogprobs: [null],
      finishReason: { type: "stop", matched: 151645 },
      usage: {
        promptTokens: 9,
        completionTokens: 4,
        cachedTokens: 8,
        e2eLatencySeconds: 0.081,
        weightVersion: "default",
      },
      upstream: s.url,
      attempts: 1,
    });
    expect(result.meta).toHaveProperty("total_retractions", 0);
  });

  it("passes rid, top_logprobs_num, an explicit logprob_start_len and extra fields through", async () => {
    const s = await stub((req, res) => sendJson(res, 200, generateReply(ridOf(req.body), [5, 6])));
    await client(s.url).generate({
      inputIds: [1, 2, 3],
      samplingParams: { max_new_tokens: 2, temperature: 0 },
      rid: "mine",
      topLogprobsNum: 5,
      logprobStartLen: 0,
      extra: { priority: 3 },
    });
    expect(s.bodies("/generate")[0]).toEqual({
      priority: 3,
      input_ids: [1, 2, 3],
      sampling_params: { max_new_tokens: 2, temperature: 0 },
      return_logprob: true,
      logprob_start_len: 0,
      top_logprobs_num: 5,
      rid: "mine",
      stream: false,
    });
  });

  it.each([
    [{ inputIds: [] }, "inputIds is empty"],
    [{ inputIds: [1, 2], logprobStartLen: 2 }, "logprobStartLen 2 must be < inputIds.length 2"],
  ])("rejects a bad request before sending it (%j)", async (req, message) => {
    const s = await stub((_r, res) => sendJson(res, 200, EXAMPLE_A_REPLY));
    const c = client(s.url);
    expect(() => c.generate({ ...req, samplingParams: {} })).toThrow(message);
    expect(s.count("/generate")).toBe(0);
  });
});

describe("generate: finish reasons and reply shapes", () => {
  const withFinish = (fr: unknown) => JSON.stringify(generateReply("r", [7, 8], fr));
  it.each([
    ["stop by token id", EXAMPLE_A_REPLY, { type: "stop", matched: 151645 }],
    ["stop by string (Example B)", EXAMPLE_B_REPLY, { type: "stop", matched: "</tool_call>" }],
    ["stop by id list", withFinish({ type: "stop", matched: [8] }), { type: "stop", matched: 8 }],
    ["stop without matched", withFinish({ type: "stop" }), { type: "stop", matched: null }],
    ["length", withFinish({ type: "length", length: 2 }), { type: "length", length: 2 }],
  ])("%s", async (_name, reply, finishReason) => {
    const s = await stub((_req, res) => sendJson(res, 200, reply));
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.finishReason).toEqual(finishReason);
  });

  it("keeps the stop token in output ids while text is trimmed (Example B)", async () => {
    const s = await stub((_req, res) => sendJson(res, 200, EXAMPLE_B_REPLY));
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.outputIds.at(-1)).toBe(151658);
    expect(result.outputLogprobs).toBeUndefined();
    expect(result.text.endsWith("</tool_call>")).toBe(false);
  });

  it("falls back to the ids in output_token_logprobs when output_ids is absent", async () => {
    const reply = generateReply("r", [11, 12, 13]);
    delete reply.output_ids;
    const s = await stub((_req, res) => sendJson(res, 200, reply));
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.outputIds).toEqual([11, 12, 13]);
  });

  it("fails with a decoding error naming the field when both id sources are missing", async () => {
    const reply = generateReply("r", [11]);
    delete reply.output_ids;
    const meta = { ...(reply.meta_info as object), output_token_logprobs: undefined };
    const s = await stub((_req, res) => sendJson(res, 200, { ...reply, meta_info: meta }));
    const error = await failure(client(s.url).generate({ inputIds: [1], samplingParams: {} }));
    expect(error).toBeInstanceOf(SglangDecodingError);
    expect(error.message).toContain("neither output_ids nor meta_info.output_token_logprobs");
    expect(s.count("/generate")).toBe(1);
  });

  it("returns top-k logprobs per output position", async () => {
    const reply = generateReply("r", [5]);
    const meta = {
      ...(reply.meta_info as object),
      output_top_logprobs: [
        [
          [-0.1, 5, null],
          [-2.5, 9, null],
        ],
      ],
      some_future_key: { nested: true },
    };
    const s = await stub((_req, res) =>
      sendJson(res, 200, { ...reply, meta_info: meta, extra: 1 }),
    );
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.outputTopLogprobs).toEqual([
      [
        { tokenId: 5, logprob: -0.1 },
        { tokenId: 9, logprob: -2.5 },
      ],
    ]);
    expect(result.meta).toHaveProperty("some_future_key", { nested: true });
  });

  it.each([
    ["abort before prefill (Example E)", EXAMPLE_E_ABORT_BEFORE_PREFILL("ep42-t2"), true],
    [
      "abort while running, newer shape",
      JSON.stringify(
        generateReply("r", [3, 4], {
          type: "abort",
          message: "aborted by scheduler",
          status_code: 503,
          err_type: "ServiceUnavailable",
        }),
      ),
      false,
    ],
  ])(
    "a 200 with an abort finish reason is a typed abort: %s",
    async (_n, reply, isBeforePrefill) => {
      const s = await stub((_req, res) => sendJson(res, 200, reply));
      const error = await failure(client(s.url).generate({ inputIds: [1], samplingParams: {} }));
      expect(error).toBeInstanceOf(SglangAbortedError);
      if (!(error instanceof SglangAbortedError)) return;
      expect(error.origin).toBe("server");
      expect(error.isBeforePrefill).toBe(isBeforePrefill);
      expect(error.partial?.finishReason?.type).toBe("abort");
      expect(s.count("/generate")).toBe(1);
    },
  );
});

describe("generate: error shapes", () => {
  it.each([
    [400, EXAMPLE_E_TOP_P, SglangHttpError, "top_p must be in (0, 1], got 1.5."],
    [400, EXAMPLE_E_CONTEXT, SglangContextLengthError, "is longer than the model's context length"],
    [
      400,
      JSON.stringify({ error: { message: CONTEXT_SUM_MESSAGE } }),
      SglangContextLengthError,
      "exceeds",
    ],
    [400, ERROR_RESPONSE_400, SglangHttpError, "1 validation error for GenerateReqInput"],
    [422, DETAIL_422, SglangHttpError, "Input should be a valid list"],
    [404, `{"detail":"Not Found"}`, SglangHttpError, "Not Found"],
  ])("%i %s → no retry", async (status, body, type, message) => {
    const s = await stub((_req, res) => sendJson(res, status, body));
    const error = await failure(client(s.url).generate({ inputIds: [1], samplingParams: {} }));
    expect(error).toBeInstanceOf(type);
    expect(error.message).toContain(message);
    expect(error.attempts).toBe(1);
    expect(s.count("/generate")).toBe(1);
    if (error instanceof SglangHttpError) expect(error.status).toBe(status);
  });

  const retried: [string, (res: ServerResponse) => void, new (...a: never[]) => SglangError][] = [
    ["503 ErrorResponse", (res) => sendJson(res, 503, OVERLOAD_503), SglangHttpError],
    ["500 empty body", (res) => sendJson(res, 500, ""), SglangHttpError],
    ["429", (res) => sendJson(res, 429, "slow down"), SglangHttpError],
    ["408", (res) => sendJson(res, 408, ""), SglangHttpError],
    ["non-JSON 200", (res) => sendJson(res, 200, "<html>bad gateway</html>"), SglangDecodingError],
    ["dropped connection", dropConnection, SglangConnectionError],
  ];
  it.each(retried)(
    "%s is retried up to maxAttempts, each with a fresh rid",
    async (_n, reply, type) => {
      const s = await stub((_req, res) => reply(res));
      const error = await failure(client(s.url).generate({ inputIds: [1], samplingParams: {} }));
      expect(error).toBeInstanceOf(type);
      expect(error.attempts).toBe(3);
      expect(s.count("/generate")).toBe(3);
      expect(new Set(s.bodies("/generate").map(ridOf)).size).toBe(3);
    },
  );

  it("recovers when a retry succeeds, reporting the attempt count", async () => {
    let n = 0;
    const s = await stub((req, res) =>
      ++n < 3
        ? sendJson(res, 503, OVERLOAD_503)
        : sendJson(res, 200, generateReply(ridOf(req.body), [1])),
    );
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.attempts).toBe(3);
    expect(result.outputIds).toEqual([1]);
    // The failed attempts travel with the result: their rids, what failed, and the waits.
    const rids = s.bodies("/generate").map(ridOf);
    expect(result.retries.map((r) => r.rid)).toEqual(rids.slice(0, 2));
    expect(result.rid).toBe(rids[2]);
    for (const retry of result.retries) {
      expect(retry.upstream).toBe(s.url);
      expect(retry.error).toMatch(/503/);
      expect(retry.backoffMs).toBeGreaterThanOrEqual(0);
    }
  });

  it("records no retries when the first attempt answers", async () => {
    const s = await stub((req, res) => sendJson(res, 200, generateReply(ridOf(req.body), [1])));
    const result = await client(s.url).generate({ inputIds: [1], samplingParams: {} });
    expect(result.retries).toEqual([]);
  });

  it("maps a refused connection to a typed connection error", async () => {
    const s = await stub(() => undefined);
    await s.close();
    const error = await failure(client(s.url).generate({ inputIds: [1], samplingParams: {} }));
    expect(error).toBeInstanceOf(SglangConnectionError);
    expect(error.attempts).toBe(3);
  });
});

describe("generate: timeouts and aborts", () => {
  it("a stalled reply times out, gets /abort_request for its rid, and is retried with a fresh rid", async () => {
    const s = await stub(() => undefined); // never answers /generate
    const error = await failure(
      client(s.url, {
        requestTimeoutMs: 50,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      }).generate({
        inputIds: [1],
        samplingParams: {},
      }),
    );
    expect(error).toBeInstanceOf(SglangTimeoutError);
    expect(error.attempts).toBe(2);
    const sent = s.bodies("/generate").map(ridOf);
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toBe(sent[1]);
    expect(s.bodies("/abort_request")).toEqual(sent.map((rid) => ({ rid })));
  });

  it("the caller's AbortSignal cancels the request and calls /abort_request with its rid", async () => {
    const s = await stub(() => undefined);
    const controller = new AbortController();
    const pending = client(s.url).generate(
      { inputIds: [1], samplingParams: {}, rid: "ep42-t2" },
      { signal: controller.signal },
    );
    await vi.waitFor(() => expect(s.count("/generate")).toBe(1));
    controller.abort();
    const error = await failure(pending);
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(error instanceof SglangAbortedError && error.origin).toBe("signal");
    expect(s.bodies("/abort_request")).toEqual([{ rid: "ep42-t2" }]);
    expect(s.count("/generate")).toBe(1);
  });

  it("an already-aborted signal sends nothing", async () => {
    const s = await stub((_r, res) => sendJson(res, 200, EXAMPLE_A_REPLY));
    const error = await failure(
      client(s.url).generate(
        { inputIds: [1], samplingParams: {} },
        { signal: AbortSignal.abort() },
      ),
    );
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(s.count("/generate")).toBe(0);
  });

  it("abort(rid) posts to /abort_request; abort-before-prefill comes back typed", async () => {
    const pending = new Map<string, ServerResponse>();
    const s = await fixture.rawStub((req, res) => {
      if (req.path === "/abort_request") {
        const rid = ridOf(req.body);
        const waiting = pending.get(rid);
        if (waiting) sendJson(waiting, 200, EXAMPLE_E_ABORT_BEFORE_PREFILL(rid));
        return void res.end();
      }
      pending.set(ridOf(req.body), res);
    });
    const c = client(s.url);
    const running = failure(c.generate({ inputIds: [1], samplingParams: {}, rid: "ep42-t2" }));
    await vi.waitFor(() => expect(pending.has("ep42-t2")).toBe(true));
    await c.abort("ep42-t2");
    const error = await running;
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(error instanceof SglangAbortedError && error.isBeforePrefill).toBe(true);
    expect(error instanceof SglangAbortedError && error.partial?.outputIds).toEqual([]);
  });

  it("a caller abort while queued for a slot sends nothing", async () => {
    const held: ServerResponse[] = [];
    const s = await stub((_req, res) => void held.push(res));
    const c = client(s.url, { maxConcurrency: 1 });
    const first = c.generate({ inputIds: [1], samplingParams: {} });
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const controller = new AbortController();
    const queued = failure(
      c.generate({ inputIds: [1], samplingParams: {} }, { signal: controller.signal }),
    );
    controller.abort();
    const error = await queued;
    expect(error).toBeInstanceOf(SglangAbortedError);
    for (const res of held) sendJson(res, 200, EXAMPLE_A_REPLY);
    expect((await first).rid).toBe("ep42-t0");
    expect(s.count("/generate")).toBe(1);
  });

  it("queues beyond maxConcurrency instead of sending", async () => {
    const held: ServerResponse[] = [];
    const s = await stub((_req, res) => void held.push(res));
    const c = client(s.url, { maxConcurrency: 2 });
    const calls = [1, 2, 3].map(() => c.generate({ inputIds: [1], samplingParams: {} }));
    await vi.waitFor(() => expect(held).toHaveLength(2));
    for (const res of held.splice(0)) sendJson(res, 200, EXAMPLE_A_REPLY);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    for (const res of held.splice(0)) sendJson(res, 200, EXAMPLE_A_REPLY);
    expect((await Promise.all(calls)).map((r) => r.rid)).toEqual(["ep42-t0", "ep42-t0", "ep42-t0"]);
    expect(s.count("/generate")).toBe(3);
  });
});

describe("info endpoints", () => {
  it("modelInfo falls back from /model_info to /get_model_info on 404", async () => {
    const s = await stub((req, res) =>
      req.path === "/get_model_info"
        ? sendJson(res, 200, {
            model_path: "Qwen/Qwen3-4B",
            tokenizer_path: null,
            is_generation: true,
          })
        : sendJson(res, 404, { detail: "Not Found" }),
    );
    expect(await client(s.url).modelInfo()).toMatchObject({ model_path: "Qwen/Qwen3-4B" });
    expect(s.requests.map((r) => r.path)).toEqual(["/model_info", "/get_model_info"]);
  });

  it("serverInfo uses /server_info first; models reads max_model_len", async () => {
    const s = await stub((req, res) =>
      req.path === "/server_info"
        ? sendJson(res, 200, { context_length: 32768, version: "0.5.0", tp_size: 1 })
        : sendJson(res, 200, {
            object: "list",
            data: [
              {
                id: "m",
                object: "model",
                created: 1,
                owned_by: "sglang",
                root: "m",
                parent: null,
                max_model_len: 32768,
              },
            ],
          }),
    );
    const c = client(s.url);
    expect(await c.serverInfo()).toMatchObject({ context_length: 32768, tp_size: 1 });
    expect((await c.models()).data[0]?.max_model_len).toBe(32768);
  });

  it("health reports each upstream; a 503 health is unhealthy", async () => {
    const up = await stub((_req, res) => res.end());
    const down = await stub((_req, res) => sendJson(res, 503, ""));
    expect(await client([up.url, down.url]).health()).toEqual([
      { url: up.url, isHealthy: true },
      { url: down.url, isHealthy: false },
    ]);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { clientFixture } from "../../test-support/sglang/clientFixture";
import { ridOf, type StubRequest, sendJson } from "../../test-support/sglang/stubUpstream";
import { SglangContextLengthError, SglangDecodingError, SglangHttpError } from "./errors";

const fixture = clientFixture();
const { stub, client } = fixture;
afterEach(() => fixture.cleanup());

/** A rescore reply in the spec's layout (§2.3): one tuple per input id, entry 0 null. */
function rescoreReply(body: unknown, score: (k: number, id: number) => number) {
  const ids = (body as { input_ids: number[] }).input_ids;
  return {
    text: "",
    output_ids: [],
    meta_info: {
      id: ridOf(body),
      finish_reason: { type: "length", length: 0 },
      prompt_tokens: ids.length,
      completion_tokens: 0,
      cached_tokens: 0,
      weight_version: "v3",
      input_token_logprobs: ids.map((id, k) => [k === 0 ? null : score(k, id), id, null]),
      output_token_logprobs: [],
    },
  };
}

const score = (k: number, id: number) => -((k * 7919 + id) % 1000) / 137;

function upstream(contextLength: number, onGenerate?: (req: StubRequest) => unknown) {
  return stub((req, res) => {
    if (req.path === "/server_info") {
      return sendJson(res, 200, { context_length: contextLength, model_path: "org/model-7b" });
    }
    if (req.path === "/v1/models") return sendJson(res, 200, { data: [{ id: "org/model-7b" }] });
    if (req.path === "/generate") {
      const custom = onGenerate?.(req);
      if (custom !== undefined) return sendJson(res, 200, custom);
      return sendJson(res, 200, rescoreReply(req.body, score));
    }
    sendJson(res, 404, { detail: "Not Found" });
  });
}

describe("SglangClient.rescore", () => {
  it("scores a 32k-token sequence in one /generate call, aligned token for token", async () => {
    const ids = Array.from({ length: 32_768 }, (_, k) => (k * 31 + 7) % 151_000);
    const s = await upstream(40_960);
    const result = await client(s.url).rescore({ inputIds: ids, temperature: 0.7 });
    expect(s.count("/generate")).toBe(1);
    const body = s.bodies("/generate")[0] as Record<string, unknown>;
    expect(body).toMatchObject({
      return_logprob: true,
      logprob_start_len: 0,
      sampling_params: { max_new_tokens: 0, temperature: 0.7 },
      stream: false,
    });
    expect(body.input_ids).toEqual(ids);
    expect(result.lane).toHaveLength(ids.length);
    expect(result.lane[0]).toBeNull();
    for (let k = 1; k < ids.length; k++) {
      if (result.lane[k] !== score(k, ids[k] as number)) throw new Error(`lane[${k}] misaligned`);
    }
    expect(result).toMatchObject({ model: "org/model-7b", weightVersion: "v3", attempts: 1 });
    expect(Date.parse(result.createdAt)).not.toBeNaN();
  });

  it("checks the context length before sending anything", async () => {
    const s = await upstream(100);
    const error = await client(s.url)
      .rescore({ inputIds: Array.from({ length: 101 }, (_, k) => k) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SglangContextLengthError);
    expect(String(error)).toContain("101 tokens");
    expect(s.count("/generate")).toBe(0);
  });

  it("rejects a reply whose entries are not about the ids sent, or too few", async () => {
    const shifted = await upstream(1000, (req) => {
      const reply = rescoreReply(req.body, score);
      reply.meta_info.input_token_logprobs.shift();
      return reply;
    });
    const error = await client(shifted.url)
      .rescore({ inputIds: [5, 6, 7] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SglangDecodingError);
    expect(String(error)).toContain("2 entries for 3 input ids");
    const swapped = await upstream(1000, (req) => {
      const reply = rescoreReply(req.body, score);
      const entry = reply.meta_info.input_token_logprobs[2] as unknown[];
      entry[1] = 99;
      return reply;
    });
    const wrong = await client(swapped.url)
      .rescore({ inputIds: [5, 6, 7] })
      .catch((e: unknown) => e);
    expect(String(wrong)).toContain("input_token_logprobs[2] is about token 99, not input id 7");
  });

  it("goes through the client's retries and upstreams", async () => {
    let calls = 0;
    const flaky = await stub((req, res) => {
      if (req.path !== "/generate") return sendJson(res, 404, { detail: "Not Found" });
      calls += 1;
      if (calls === 1) return sendJson(res, 503, { object: "error", message: "overloaded" });
      sendJson(res, 200, rescoreReply(req.body, score));
    });
    const result = await client(flaky.url).rescore({ inputIds: [1, 2, 3] });
    expect(result.attempts).toBe(2);
    expect(result.lane).toEqual([null, score(1, 2), score(2, 3)]);
    const down = await stub((_req, res) => sendJson(res, 400, { detail: "bad" }));
    await expect(client(down.url).rescore({ inputIds: [1, 2] })).rejects.toBeInstanceOf(
      SglangHttpError,
    );
  });

  it("stops when the caller aborts", async () => {
    const stalled = await stub((req, res) => {
      if (req.path !== "/generate") return sendJson(res, 404, { detail: "Not Found" });
      // never answers
    });
    const controller = new AbortController();
    const pending = client(stalled.url).rescore(
      { inputIds: [1, 2, 3] },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});

describe("SglangClient.rescoreBatch and partial rescores (the bisect lab)", () => {
  it("sends one batch /generate with per-item lists and one rid, and reads each item's lane", async () => {
    const a = [5, 6, 7];
    const b = [8, 9, 10, 11];
    const s = await upstream(100, (req) => {
      const body = req.body as { input_ids: number[][]; rid: string };
      return body.input_ids.map((ids, i) => ({
        ...rescoreReply({ input_ids: ids, rid: `${body.rid}_${i}` }, score),
      }));
    });
    const [ra, rb] = await client(s.url).rescoreBatch([
      { inputIds: a, temperature: 0.7 },
      { inputIds: b, temperature: 0.7 },
    ]);
    expect(s.count("/generate")).toBe(1);
    const body = s.bodies("/generate")[0] as Record<string, unknown>;
    expect(body).toMatchObject({
      input_ids: [a, b],
      logprob_start_len: [0, 0],
      return_logprob: [true, true],
      sampling_params: [
        { max_new_tokens: 0, temperature: 0.7 },
        { max_new_tokens: 0, temperature: 0.7 },
      ],
    });
    expect(typeof body.rid).toBe("string");
    expect(ra?.lane).toEqual([null, score(1, 6), score(2, 7)]);
    expect(rb?.lane).toEqual([null, score(1, 9), score(2, 10), score(3, 11)]);
  });

  it("fails a batch answered with another number of items", async () => {
    const s = await upstream(100, () => [rescoreReply({ input_ids: [1, 2] }, score)]);
    await expect(
      client(s.url).rescoreBatch([{ inputIds: [1, 2] }, { inputIds: [3, 4] }]),
    ).rejects.toThrow(/a batch of 2 got 1 items/);
  });

  it("reads a rescore from logprob_start_len S: entries cover ids[S..], the first null", async () => {
    const ids = [3, 4, 5, 6];
    const s = await upstream(100, (req) => {
      const body = req.body as { input_ids: number[]; logprob_start_len: number };
      const from = body.input_ids.slice(body.logprob_start_len);
      const reply = rescoreReply({ input_ids: from }, (k, id) => score(k + 2, id));
      return reply;
    });
    const r = await client(s.url).rescore({ inputIds: ids, logprobStartLen: 2 });
    expect(r.lane).toEqual([null, null, null, score(3, 6)]);
    const s2 = await upstream(100, () => rescoreReply({ input_ids: [5] }, score));
    await expect(client(s2.url).rescore({ inputIds: ids, logprobStartLen: 2 })).rejects.toThrow(
      /has 1 entries for 2 input ids \(logprob_start_len 2\)/,
    );
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { clientFixture } from "../../test-support/sglang/clientFixture";
import {
  EXAMPLE_D_DELTA_STREAM,
  EXAMPLE_D_STREAM,
  OVERLOAD_503,
} from "../../test-support/sglang/specExamples";
import { generateReply, ridOf, sendJson, sendSse } from "../../test-support/sglang/stubUpstream";
import {
  SglangAbortedError,
  SglangConnectionError,
  SglangContextLengthError,
  type SglangError,
  SglangHttpError,
  SglangTimeoutError,
} from "./errors";
import type { ClientGenerateResult, ClientStreamStep } from "./sglangClient";

const fixture = clientFixture();
const stub = fixture.stub;
const client = (url: string, streamIdleTimeoutMs = 10_000) =>
  fixture.client(url, { streamIdleTimeoutMs, health: { intervalMs: 0 } });

/** The turn so far after each step (result() at the time of the step), and the error if any. */
async function collect(
  stream: AsyncIterable<ClientStreamStep>,
): Promise<{ snapshots: ClientGenerateResult[]; error: SglangError | undefined }> {
  const snapshots: ClientGenerateResult[] = [];
  try {
    for await (const s of stream) snapshots.push(s.result());
    return { snapshots, error: undefined };
  } catch (error) {
    return { snapshots, error: error as SglangError }; // the client only throws SglangErrors
  }
}

const REQUEST = { inputIds: [1, 2, 3], samplingParams: { max_new_tokens: 4 } };

afterEach(() => fixture.cleanup());

describe("generateStream", () => {
  it.each([
    ["cumulative (Example D)", EXAMPLE_D_STREAM],
    ["delta (--incremental-streaming-output)", EXAMPLE_D_DELTA_STREAM],
  ])("folds %s chunks into cumulative snapshots", async (_name, body) => {
    const s = await stub((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body);
    });
    const { snapshots, error } = await collect(client(s.url).generateStream(REQUEST));
    expect(error).toBeUndefined();
    expect(snapshots.map((x) => x.outputIds)).toEqual([
      [13048],
      [13048, 1052],
      [13048, 1052, 0, 151645],
    ]);
    expect(snapshots.map((x) => x.text)).toEqual(["Hi", "Hi there", "Hi there!<|im_end|>"]);
    expect(snapshots.map((x) => x.finishReason)).toEqual([
      null,
      null,
      { type: "stop", matched: 151645 },
    ]);
    expect(s.bodies("/generate")[0]).toMatchObject({ stream: true, logprob_start_len: 2 });
    expect(s.count("/abort_request")).toBe(0);
  });

  it("appends delta logprobs and keeps cumulative ones (older --stream-output)", async () => {
    const chunk = (ids: number[], lps: number[][], total: number, done: boolean) => ({
      text: "",
      output_ids: ids,
      meta_info: {
        id: "r",
        finish_reason: done ? { type: "length", length: total } : null,
        completion_tokens: total,
        output_token_logprobs: lps.map(([lp, id]) => [lp, id, null]),
      },
    });
    const s = await stub((_req, res) =>
      sendSse(res, [
        chunk([5], [[-1, 5]], 1, false),
        // delta ids, cumulative logprobs
        chunk(
          [6, 7],
          [
            [-1, 5],
            [-2, 6],
            [-3, 7],
          ],
          3,
          true,
        ),
      ]),
    );
    const { snapshots } = await collect(client(s.url).generateStream(REQUEST));
    expect(snapshots.at(-1)?.outputIds).toEqual([5, 6, 7]);
    expect(snapshots.at(-1)?.outputLogprobs).toEqual([-1, -2, -3]);
  });

  it.each([
    [
      "an in-stream error",
      [{ error: { message: "scheduler exploded" } }],
      SglangHttpError,
      "scheduler exploded",
    ],
    [
      "an in-stream context-length error",
      [
        {
          error: {
            message: "The input (9 tokens) is longer than the model's context length (8 tokens).",
          },
        },
      ],
      SglangContextLengthError,
      "context length",
    ],
    [
      "an in-stream abort finish reason",
      [
        generateReply("r", [4, 5], {
          type: "abort",
          message: "Abort before prefill",
          status_code: null,
        }),
      ],
      SglangAbortedError,
      "Abort before prefill",
    ],
  ])("%s is typed and not retried", async (_name, events, type, message) => {
    const s = await stub((_req, res) => sendSse(res, events));
    const { error } = await collect(client(s.url).generateStream(REQUEST));
    expect(error).toBeInstanceOf(type);
    expect(error?.message).toContain(message);
    expect(s.count("/generate")).toBe(1);
  });

  it("retries a 503 before the first chunk, then streams", async () => {
    let n = 0;
    const s = await stub((req, res) =>
      ++n === 1
        ? sendJson(res, 503, OVERLOAD_503)
        : sendSse(res, [generateReply(ridOf(req.body), [9])]),
    );
    const { snapshots, error } = await collect(client(s.url).generateStream(REQUEST));
    expect(error).toBeUndefined();
    expect(snapshots.at(-1)).toMatchObject({ outputIds: [9], attempts: 2 });
  });

  it("does not retry once a snapshot was delivered; the dropped stream is a connection error", async () => {
    const s = await stub((req, res) => {
      const partial = generateReply(ridOf(req.body), [9], null);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(partial)}\n\n`, () => res.socket?.destroy());
    });
    const { snapshots, error } = await collect(client(s.url).generateStream(REQUEST));
    expect(snapshots).toHaveLength(1);
    expect(error).toBeInstanceOf(SglangConnectionError);
    expect(s.count("/generate")).toBe(1);
    await vi.waitFor(() => expect(s.count("/abort_request")).toBe(1));
  });

  it("a stalled stream times out on idleness and its rid is aborted", async () => {
    const s = await stub((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(generateReply(ridOf(req.body), [9], null))}\n\n`);
    });
    const { error } = await collect(client(s.url, 60).generateStream(REQUEST));
    expect(error).toBeInstanceOf(SglangTimeoutError);
    expect(s.bodies("/abort_request")).toEqual([{ rid: ridOf(s.bodies("/generate")[0]) }]);
  });

  it("the caller's AbortSignal ends the stream typed and aborts its rid", async () => {
    const s = await stub((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(generateReply(ridOf(req.body), [9], null))}\n\n`);
    });
    const controller = new AbortController();
    const stream = client(s.url).generateStream(
      { ...REQUEST, rid: "ep8-stream" },
      { signal: controller.signal },
    );
    const first = await stream.next();
    expect(first.value?.delta.ids).toEqual([9]);
    controller.abort();
    const { error } = await collect(stream);
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(s.bodies("/abort_request")).toEqual([{ rid: "ep8-stream" }]);
  });

  it("breaking out of the loop aborts the request server-side", async () => {
    const s = await stub((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(generateReply(ridOf(req.body), [9], null))}\n\n`);
    });
    for await (const step of client(s.url).generateStream({ ...REQUEST, rid: "ep7-stream" })) {
      expect(step.delta.ids).toEqual([9]);
      break;
    }
    expect(s.bodies("/abort_request")).toEqual([{ rid: "ep7-stream" }]);
  });

  it("a stream that ends without a final finish reason is an error", async () => {
    const s = await stub((req, res) => sendSse(res, [generateReply(ridOf(req.body), [9], null)]));
    const { error } = await collect(client(s.url).generateStream(REQUEST));
    expect(error).toBeInstanceOf(SglangConnectionError);
    expect(error?.message).toContain("without a final finish_reason");
  });
});

// A streamed turn's work must be linear in its tokens. Counted, not timed: what the
// client hands on per step, summed over a turn streamed one token per chunk.
describe("generateStream work", () => {
  /** Chunks of a `tokens`-token turn, one token each, as deltas or cumulative snapshots. */
  function turnChunks(rid: string, tokens: number, isDelta: boolean): unknown[] {
    return Array.from({ length: tokens }, (_, i) => {
      const ids = isDelta ? [100 + i] : Array.from({ length: i + 1 }, (_, k) => 100 + k);
      const reply = generateReply(
        rid,
        ids,
        i === tokens - 1 ? { type: "length", length: tokens } : null,
      );
      const meta = reply.meta_info as Record<string, unknown>;
      const logprobs = ids.map((id) => [-0.5, id, null]);
      return {
        ...reply,
        meta_info: { ...meta, completion_tokens: i + 1, output_token_logprobs: logprobs },
      };
    });
  }

  it.each([
    ["delta", true],
    ["cumulative", false],
  ])("hands on each token once over a %s stream of 2,000 chunks", async (_name, isDelta) => {
    const tokens = 2000;
    const s = await stub((req, res) => sendSse(res, turnChunks(ridOf(req.body), tokens, isDelta)));
    let handedOn = 0;
    let steps = 0;
    let last: ClientStreamStep | undefined;
    for await (const step of client(s.url).generateStream(REQUEST)) {
      steps++;
      handedOn += step.delta.ids.length + step.delta.logprobs.length;
      last = step;
    }
    expect(steps).toBe(tokens);
    // 2 × 2,000 elements in all; cumulative snapshots per step would hand on 2 × 2,001,000.
    expect(handedOn).toBe(2 * tokens);
    const result = last?.result();
    expect(result?.outputIds).toEqual(Array.from({ length: tokens }, (_, k) => 100 + k));
    expect(result?.outputLogprobs).toHaveLength(tokens);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSim, startSim } from "../sim/start";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import {
  SglangAbortedError,
  SglangConnectionError,
  SglangContextLengthError,
  SglangHttpError,
} from "./errors";
import { SglangClient } from "./sglangClient";

/**
 * The client (written from the spec) against the simulator (also written from the spec, by
 * someone else): every finish reason, the error shapes, a retry path and aborts.
 */
const fast = { retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 } };
let clean: RunningSim;
let prompt: number[];

beforeAll(async () => {
  clean = await startSim({ port: 0 }, { contextLength: 4096 });
  const qwen = await loadTokenizer("qwen3");
  prompt = qwen.encode(
    qwen.applyChatTemplate([{ role: "user", content: "What is 15*7?" }], {
      addGenerationPrompt: true,
    }),
  );
});

afterAll(async () => {
  await clean.close();
});

describe("SglangClient against the simulator", () => {
  it("stops on the EOS id and keeps it in output_ids, with one logprob per id", async () => {
    const client = new SglangClient({ upstreams: clean.url, ...fast });
    const result = await client.generate({
      inputIds: prompt,
      samplingParams: {
        max_new_tokens: 512,
        temperature: 0,
        custom_params: { policy: "non-canonical" },
      },
    });
    expect(result.finishReason).toEqual({ type: "stop", matched: 151645 });
    expect(result.outputIds.at(-1)).toBe(151645);
    expect(result.outputLogprobs).toHaveLength(result.outputIds.length);
    expect(result.usage.completionTokens).toBe(result.outputIds.length);
    await client.close();
  });

  it("returns top_logprobs_num alternatives per output token, streamed or not (docs/sglang.md)", async () => {
    const client = new SglangClient({ upstreams: clean.url, ...fast });
    const request = {
      inputIds: prompt,
      samplingParams: { max_new_tokens: 64, custom_params: { policy: "calculator" } },
      topLogprobsNum: 5,
    };
    const whole = await client.generate(request);
    let last: Awaited<ReturnType<typeof client.generate>> | undefined;
    for await (const step of client.generateStream(request)) last = step.result();
    for (const result of [whole, last]) {
      const n = result?.outputIds.length ?? 0;
      expect(n).toBeGreaterThan(0);
      expect(result?.outputTopLogprobs).toHaveLength(n);
      for (const [i, top] of (result?.outputTopLogprobs ?? []).entries()) {
        expect(top).toHaveLength(5);
        const sorted = [...(top ?? [])].sort((a, b) => b.logprob - a.logprob);
        expect(top).toEqual(sorted);
        const own = top?.find((t) => t.tokenId === result?.outputIds[i]);
        expect(own?.logprob).toBe(result?.outputLogprobs?.[i]);
      }
    }
    const none = await client.generate({ ...request, topLogprobsNum: 0 });
    expect(none.outputTopLogprobs).toBeUndefined();
    await client.close();
  });

  it("reports a stop string, a length stop and context-length errors as typed results", async () => {
    const client = new SglangClient({ upstreams: clean.url, ...fast });
    const stopped = await client.generate({
      inputIds: prompt,
      samplingParams: {
        max_new_tokens: 512,
        stop: ["</tool_call>"],
        custom_params: { policy: "calculator" },
      },
    });
    expect(stopped.finishReason).toEqual({ type: "stop", matched: "</tool_call>" });
    const cut = await client.generate({ inputIds: prompt, samplingParams: { max_new_tokens: 3 } });
    expect(cut.finishReason).toEqual({ type: "length", length: 3 });
    expect(cut.outputIds).toHaveLength(3);
    await expect(
      client.generate({ inputIds: prompt, samplingParams: { max_new_tokens: 5000 } }),
    ).rejects.toBeInstanceOf(SglangContextLengthError);
    await client.close();
  });

  it("does not retry a 400 and names the server's message", async () => {
    const client = new SglangClient({ upstreams: clean.url, ...fast });
    const error = await client
      .generate({ inputIds: prompt, samplingParams: { top_p: 1.5 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SglangHttpError);
    expect(error).toMatchObject({
      status: 400,
      message: expect.stringMatching(/top_p must be in \(0, 1\]/),
    });
    await client.close();
  });

  it("rides out 503s and dropped connections by retrying", async () => {
    const flaky = await startSim({ port: 0 }, { faults: { rate503: 0.3, rateDrop: 0.2, seed: 7 } });
    const client = new SglangClient({
      upstreams: flaky.url,
      retry: { maxAttempts: 12, baseDelayMs: 1, maxDelayMs: 5 },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.generate({ inputIds: prompt, samplingParams: { max_new_tokens: 8 } }),
      ),
    );
    expect(results.every((r) => r.finishReason !== null)).toBe(true);
    expect(results.some((r) => r.attempts > 1)).toBe(true);
    await client.close();
    await flaky.close();
  });

  it("gives a typed error after the configured attempts when the upstream keeps failing", async () => {
    const broken = await startSim({ port: 0 }, { faults: { rateDrop: 1, seed: 3 } });
    const client = new SglangClient({ upstreams: broken.url, ...fast });
    const error = await client
      .generate({ inputIds: prompt, samplingParams: { max_new_tokens: 8 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SglangConnectionError);
    await client.close();
    await broken.close();
  });

  it("reports abort-before-prefill as an abort, not a turn", async () => {
    const aborting = await startSim(
      { port: 0 },
      { faults: { rateAbortBeforePrefill: 1, seed: 3 } },
    );
    const client = new SglangClient({ upstreams: aborting.url, ...fast });
    const error = await client
      .generate({ inputIds: prompt, samplingParams: { max_new_tokens: 8 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(error).toMatchObject({ origin: "server" });
    await client.close();
    await aborting.close();
  });

  it("cancels a stalled request from the caller's signal", async () => {
    const stalling = await startSim({ port: 0 }, { faults: { rateStall: 1, seed: 3 } });
    const client = new SglangClient({ upstreams: stalling.url, ...fast });
    const controller = new AbortController();
    const pending = client
      .generate(
        { inputIds: prompt, samplingParams: { max_new_tokens: 8 } },
        { signal: controller.signal },
      )
      .catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).toBeInstanceOf(SglangAbortedError);
    expect(error).toMatchObject({ origin: "signal" });
    await client.close();
    await stalling.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedSimOptions } from "../services";
import { type RunningSim, startSim } from "../sim/start";
import { loadTokenizer } from "../tokenizers/loadTokenizer";

// A streamed turn must cost the server work linear in its tokens: the embedded simulator runs in
// the server's process, so what it sends (and the client parses) is counted here in bytes, not
// timed. Cumulative chunks (SGLang's default) carry the whole turn each step: doubling the turn
// quadruples the bytes.

let sim: RunningSim;
let promptIds: number[];

beforeAll(async () => {
  sim = await startSim({ port: 0 }, embeddedSimOptions("qwen3"));
  const qwen = await loadTokenizer("qwen3");
  promptIds = qwen.encode("<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n");
});
afterAll(() => sim?.close());

/** Bytes of the SSE stream of one turn of `tokens` tokens, top-5 logprobs on. */
async function streamedBytes(tokens: number): Promise<number> {
  const res = await fetch(`${sim.url}/generate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      input_ids: promptIds,
      sampling_params: {
        max_new_tokens: tokens,
        ignore_eos: true,
        custom_params: { policy: "long-winded" },
      },
      return_logprob: true,
      top_logprobs_num: 5,
      stream: true,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.arrayBuffer()).byteLength;
}

describe("streaming work", () => {
  it("grows linearly with the turn's tokens (bytes sent and parsed per token stay flat)", async () => {
    const short = await streamedBytes(300);
    const long = await streamedBytes(600);
    // Linear: ~2x; cumulative chunks: ~4x.
    expect(long / short).toBeLessThan(2.4);
    expect(long / short).toBeGreaterThan(1.6);
  }, 60_000);
});

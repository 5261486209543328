import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialPrompt, toolResultSuffix } from "../../src/core/tito/prompts";
import { recordingSink } from "../../test-support/recordingSink";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createOffThreadEncoder, OFF_THREAD_CHARS } from "../tokenizers/offThreadEncoder";
import { createToolRegistry } from "../tools/registry";
import { prefixFor } from "./branches";
import type { ModelClient } from "./modelClient";
import { runEpisode } from "./runEpisode";

// A 1 MB prompt or tool result froze the whole server for 11–13 s while it was
// tokenized. Long texts are encoded on a worker thread: other requests are answered meanwhile.

/** A text of `chars` characters of varied words, newlines and non-ASCII. */
function longText(chars: number): string {
  const words = ["alpha", "beta", "gamma", "delta 12345", "x=y+z;", "\n", "  indent", "Ünïcödé"];
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const word = `${words[(i * 7) % words.length]} `;
    parts.push(word);
    length += word.length;
  }
  return parts.join("").slice(0, chars);
}

let services: Services;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  const data = mkdtempSync(join(tmpdir(), "rl-large-inputs-"));
  services = await createServices(parseServerConfig({ data, files: [] }));
  app = buildApp(services);
}, 60_000);
afterAll(() => services?.close());

describe("a 1 MB prompt", () => {
  it("is tokenized while the server answers other requests, into the same ids", async () => {
    const prompt = longText(999_000);
    const started = await app.request("/api/episodes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt, tools: [], sampling_params: { max_new_tokens: 4 } }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    const hasPrompt = () => (services.manager.trajectory(id)?.segments.length ?? 0) > 0;
    // Other requests are answered while the prompt is encoded (before its segment exists).
    let answeredMeanwhile = 0;
    while (!hasPrompt()) {
      const health = await app.request("/api/health");
      expect(health.status).toBe(200);
      if (!hasPrompt()) answeredMeanwhile++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
    await (await app.request(`/api/episodes/${id}/events`)).text();
    const segment = services.manager.trajectory(id)?.segments[0];
    const expected = initialPrompt(services.tokenizer, { user: prompt });
    expect(segment?.text).toBe(expected.text);
    expect(segment?.tokenIds).toEqual(expected.tokenIds);
  }, 120_000);
});

describe("a long tool result", () => {
  it("is encoded off the event loop into the ids the in-place encoder gives", async () => {
    const tokenizer = await loadTokenizer("qwen3");
    const encoder = createOffThreadEncoder();
    const offThread: string[] = [];
    const replies = [
      '<tool_call>\n{"name": "mock", "arguments": {"query": "all"}}\n</tool_call><|im_end|>',
      "Done.<|im_end|>",
    ];
    let turns = 0;
    const client: ModelClient = {
      upstream: "scripted",
      model: "scripted",
      async generate() {
        const outputIds = tokenizer.encode(replies[Math.min(turns++, 1)] ?? "");
        return {
          rid: `r${turns}`,
          outputIds,
          logprobs: outputIds.map(() => -0.1),
          finishReason: { type: "stop", matched: 151645 },
        };
      },
    };
    const result = longText(OFF_THREAD_CHARS * 3);
    const deps = {
      tokenizer,
      tokenizerName: "qwen3",
      client,
      registry: createToolRegistry(),
      encodeOffThread: (name: string, text: string) => {
        offThread.push(text);
        return encoder.encode(name, text);
      },
    };
    const request = { prompt: "Read it all.", tools: ["mock"], mock_replies: { mock: [result] } };
    const t = await runEpisode(deps, request, recordingSink("ep_tool"));
    expect(t.status).toBe("completed");
    const tool = t.segments.find((s) => s.kind === "tool");
    const expected = toolResultSuffix(tokenizer, [
      { role: "tool", content: result, tool_call_id: "call_0000", name: "mock" },
    ]);
    expect(tool?.text).toBe(expected.text);
    expect(tool?.tokenIds).toEqual(expected.tokenIds);
    // Only the long text went to the encoder thread; the short prompt was encoded in place.
    expect(offThread).toEqual([expected.text]);

    // A fork that edits that tool result: the long edit is encoded off the event loop too, into
    // the ids the in-place path gives.
    const at = t.segments.findIndex((s) => s.kind === "tool");
    const index = t.segments.slice(0, at).reduce((n, s) => n + s.tokenIds.length, 0);
    const edit = longText(OFF_THREAD_CHARS * 2);
    const body = { fork: { episode: t.id, index, tool_result: edit } };
    offThread.length = 0;
    const forked = await prefixFor(t, body, deps);
    const inPlace = await prefixFor(t, body, { ...deps, encodeOffThread: undefined });
    await encoder.close();
    if ("error" in forked || "error" in inPlace) throw new Error("the fork was refused");
    expect(forked.segments[at]?.tokenIds).toEqual(inPlace.segments[at]?.tokenIds);
    expect(forked.segments[at]?.text).toContain(edit);
    expect(offThread).toHaveLength(1);
    expect(offThread[0]).toContain(edit);
  }, 120_000);
});

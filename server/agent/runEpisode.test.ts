import { describe, expect, it } from "vitest";
import { recordedToolNames } from "../../src/core/drift/templateInput";
import { TitoLedger } from "../../src/core/tito/ledger";
import { initialPrompt, toolResultSuffix } from "../../src/core/tito/prompts";
import { recordingSink } from "../../test-support/recordingSink";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createToolRegistry } from "../tools/registry";
import { COMPLETED_REASON, DEFAULT_EPISODE_TOOLS, DEFAULT_MAX_ITERATIONS } from "./episodeDefaults";
import type { ModelClient, ModelTurnRequest } from "./modelClient";
import { runEpisode } from "./runEpisode";

const tokenizer = await loadTokenizer("qwen3");

/** A model that answers every turn with the next of `replies` (looping on the last). */
function scripted(replies: readonly string[]) {
  const requests: ModelTurnRequest[] = [];
  const client: ModelClient = {
    upstream: "scripted",
    model: "scripted-model",
    async generate(request) {
      const text = replies[Math.min(requests.length, replies.length - 1)] ?? "";
      requests.push(request);
      const outputIds = tokenizer.encode(text);
      return {
        rid: `r${requests.length}`,
        outputIds,
        logprobs: outputIds.map(() => -0.5),
        finishReason: { type: "stop", matched: 151645 },
      };
    },
  };
  return { client, requests };
}

const sink = () => recordingSink("ep_test");

const deps = (client: ModelClient) => ({
  tokenizer,
  tokenizerName: "qwen3",
  client,
  registry: createToolRegistry(),
});

const call = (expression: string) =>
  `<tool_call>\n{"name": "calculator", "arguments": {"expression": "${expression}"}}\n</tool_call><|im_end|>`;

describe("runEpisode near the end of the context window", () => {
  it("asks for the room left minus one token, and stops when only that token is left", async () => {
    const { client, requests } = scripted(["Hi!<|im_end|>"]);
    // The prompt's length, from a first run without a window.
    await runEpisode(deps(client), { prompt: "Say hi." }, sink());
    const prompt = requests[0]?.inputIds.length ?? 0;
    const windowed = (contextLength: number) => {
      const s = scripted(["Hi!<|im_end|>"]);
      return { ...s, client: { ...s.client, contextLength } };
    };
    const three = windowed(prompt + 3);
    await runEpisode(deps(three.client), { prompt: "Say hi." }, sink());
    // Older servers reject prompt + max_new_tokens equal to the window (docs/sglang.md): 2, not 3.
    expect(three.requests[0]?.samplingParams.max_new_tokens).toBe(2);
    const one = windowed(prompt + 1);
    const t = await runEpisode(deps(one.client), { prompt: "Say hi." }, sink());
    expect(one.requests).toHaveLength(0);
    expect(t.status).toBe("aborted");
    expect(t.endReason).toMatch(/context window full/);
  });
});

describe("runEpisode", () => {
  it("uses the named defaults: the calculator tool and the iteration limit", async () => {
    const { client, requests } = scripted([call("1+1")]);
    const out = sink();
    const t = await runEpisode(deps(client), { prompt: "loop" }, out);
    expect(t.metadata).toMatchObject({
      max_iterations: DEFAULT_MAX_ITERATIONS,
    });
    // The tools' schemas (the per-turn check re-renders the prompt with them); their names read back.
    expect(recordedToolNames(t)).toEqual(DEFAULT_EPISODE_TOOLS);
    expect(requests).toHaveLength(DEFAULT_MAX_ITERATIONS);
    expect(t).toMatchObject({ status: "truncated", endReason: expect.stringMatching(/^Max tool/) });
  });

  it("goes on from an existing token record: the prefix is published, then the next turn", async () => {
    const ledger = new TitoLedger();
    ledger.appendPrompt(initialPrompt(tokenizer, { user: "What is 2+3?" }));
    const first = tokenizer.encode(call("2+3"));
    ledger.appendModel({ outputIds: first, logprobs: first.map(() => -0.1) });
    const toolMessage = { role: "tool", content: "5", tool_call_id: "call_0000" };
    ledger.appendTool(toolResultSuffix(tokenizer, [toolMessage], {}));
    const prefixIds = ledger.inputIds();
    const { client, requests } = scripted(["The answer is 5.<|im_end|>"]);
    const out = sink();
    const messages = [{ role: "user", content: "What is 2+3?" }];
    const t = await runEpisode(deps(client), { prompt: "What is 2+3?" }, out, {
      ledger,
      messages,
      counts: { toolIterations: 1, toolCalls: 1 },
    });
    // The model continued from exactly the prefix's tokens; no new prompt was rendered.
    expect(requests.map((r) => r.inputIds)).toEqual([prefixIds]);
    expect(t).toMatchObject({ status: "completed", endReason: COMPLETED_REASON });
    expect(t.segments.map((s) => s.kind)).toEqual(["prompt", "model", "tool", "model"]);
    expect(t.segments.flatMap((s) => s.tokenIds).slice(0, prefixIds.length)).toEqual(prefixIds);
    expect(t.metadata).toMatchObject({ tool_iterations: 1, tool_calls: 1 });
    expect(t.messages?.map((m) => m.role)).toEqual(["user", "assistant"]);
    const segmentEvents = out.events.flatMap((e) => (e.type === "segment" ? [e.index] : []));
    expect(segmentEvents).toEqual([0, 1, 2, 3]);
    expect(out.events.map((e) => e.type)).toEqual([
      "started",
      "segment",
      "segment",
      "segment",
      "segment",
      "call",
      "end",
    ]);
  });

  it("publishes each segment once, as the ledger holds it, and the snapshot agrees", async () => {
    const { client } = scripted([call("6*7"), "42<|im_end|>"]);
    const out = sink();
    const t = await runEpisode(deps(client), { prompt: "What is 6*7?" }, out);
    const published = out.events.flatMap((e) => (e.type === "segment" ? [e.segment] : []));
    expect(published.map((s) => s.kind)).toEqual(["prompt", "model", "tool", "model"]);
    // The model segment was published before its tool results were attached.
    expect(published[1]?.toolCalls?.[0]?.result).toBeUndefined();
    expect(t.segments[1]?.toolCalls?.[0]?.result).toBe("42");
    expect(out.snapshot?.().segments).toHaveLength(4);
  });
});

describe("runEpisode with a requested tool-call parser (tool_call_parser)", () => {
  const coderCall =
    "<tool_call>\n<function=calculator>\n<parameter=expression>\n2+3\n</parameter>\n</function>\n</tool_call><|im_end|>";
  const glmCall =
    "<tool_call>calculator\n<arg_key>expression</arg_key>\n<arg_value>2+3</arg_value>\n</tool_call><|im_end|>";

  it.each([
    ["qwen_xml", coderCall],
    ["glm", glmCall],
  ])(
    "%s reads the model's calls (the family's hermes would not), and is recorded",
    async (parser, text) => {
      const answered = async (tool_call_parser?: string) => {
        const { client } = scripted([text, "It is 5.<|im_end|>"]);
        return runEpisode(
          deps(client),
          { prompt: "What is 2+3?", ...(tool_call_parser ? { tool_call_parser } : {}) },
          sink(),
        );
      };
      const t = await answered(parser);
      const calls = t.segments.flatMap((s) => s.toolCalls ?? []);
      expect(calls.map((c) => [c.name, c.arguments, c.result, c.error])).toEqual([
        ["calculator", { expression: "2+3" }, "5", undefined],
      ]);
      expect(t.metadata.tool_call_parser).toBe(parser);
      // The same output read with Qwen3's own hermes parser: no valid call.
      const plain = await answered();
      const plainCalls = plain.segments.flatMap((s) => s.toolCalls ?? []);
      expect(plainCalls.every((c) => c.error !== undefined)).toBe(true);
      expect(plain.metadata.tool_call_parser).toBeUndefined();
    },
  );
});

import { describe, expect, it } from "vitest";
import { forkPrefix } from "../../src/core/tito/fork";
import { TitoLedger } from "../../src/core/tito/ledger";
import { initialPrompt } from "../../src/core/tito/prompts";
import type { Trajectory } from "../../src/core/trajectory/types";
import { recordingSink } from "../../test-support/recordingSink";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createToolRegistry } from "../tools/registry";
import type { ModelClient, ModelTurnRequest } from "./modelClient";
import { runBranch } from "./runBranch";

const tokenizer = await loadTokenizer("qwen3");

function answering(text: string, contextLength?: number) {
  const requests: ModelTurnRequest[] = [];
  const client: ModelClient = {
    upstream: "scripted",
    model: "scripted-model",
    ...(contextLength === undefined ? {} : { contextLength }),
    async generate(request) {
      requests.push(request);
      const outputIds = tokenizer.encode(text);
      return {
        rid: `r${requests.length}`,
        outputIds,
        logprobs: outputIds.map(() => -0.25),
        finishReason: { type: "stop", matched: 151645 },
      };
    },
  };
  return { client, requests };
}

const sink = () => recordingSink("ep_branch");

/** A finished one-turn parent: prompt, then a model answer. */
function parentTrajectory(): Trajectory {
  const ledger = new TitoLedger();
  ledger.appendPrompt(initialPrompt(tokenizer, { user: "Say hello." }));
  const answer = tokenizer.encode("Hello there, friend.<|im_end|>");
  ledger.appendModel({
    outputIds: answer,
    logprobs: answer.map(() => -0.1),
    text: tokenizer.decode(answer),
  });
  return ledger.toTrajectory({ id: "ep_parent", status: "completed", tokenizer: "qwen3" });
}

describe("runBranch", () => {
  it("continues the parent's model segment: one segment, parent tokens first, lineage set", async () => {
    const parent = parentTrajectory();
    const start = parent.segments[0]?.tokenIds.length ?? 0;
    const n = start + 2;
    const forked = forkPrefix(parent, n, { tokenizerName: "qwen3", tokenizer });
    if (!forked.ok) throw new Error(forked.error);
    const { client, requests } = answering(" again!<|im_end|>");
    const s = sink();
    const registry = createToolRegistry();
    const deps = { tokenizer, tokenizerName: "qwen3", client, registry };
    const final = await runBranch(deps, { prompt: "Say hello." }, s, forked.prefix);
    const parentIds = parent.segments.flatMap((x) => [...x.tokenIds]);
    expect(requests[0]?.inputIds).toEqual(parentIds.slice(0, n));
    const generated = tokenizer.encode(" again!<|im_end|>");
    expect(final.segments).toHaveLength(2);
    const model = final.segments[1];
    expect(model?.tokenIds).toEqual([...parentIds.slice(start, n), ...generated]);
    expect(model?.logprobs).toEqual([-0.1, -0.1, ...generated.map(() => -0.25)]);
    expect(model?.text).toBe(tokenizer.decode([...parentIds.slice(start, n), ...generated]));
    expect(final.lineage).toEqual({ parentId: "ep_parent", forkIndex: n });
    expect(s.snapshot?.().lineage).toEqual({ parentId: "ep_parent", forkIndex: n });
    expect(final.status).toBe("completed");
  });

  it("leaves room for the parent's tokens before N within the context window", async () => {
    const parent = parentTrajectory();
    const start = parent.segments[0]?.tokenIds.length ?? 0;
    const n = start + 3;
    const forked = forkPrefix(parent, n, { tokenizerName: "qwen3", tokenizer });
    if (!forked.ok) throw new Error(forked.error);
    const { client, requests } = answering("!<|im_end|>", n + 5);
    const deps = { tokenizer, tokenizerName: "qwen3", client, registry: createToolRegistry() };
    await runBranch(deps, { prompt: "Say hello." }, sink(), forked.prefix);
    // n + 5 tokens of window, n used: 4 new ones, one of slack (older servers reject a full window).
    expect(requests[0]?.samplingParams.max_new_tokens).toBe(4);

    const full = answering("!<|im_end|>", n);
    const ended = await runBranch(
      { ...deps, client: full.client },
      { prompt: "Say hello." },
      sink(),
      forked.prefix,
    );
    expect(full.requests).toHaveLength(0);
    expect(ended.status).toBe("aborted");
    expect(ended.endReason).toMatch(/context overflow: the fork's prefix \(\d+ tokens\) fills/);
  });
});

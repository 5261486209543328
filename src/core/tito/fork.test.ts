import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import type { Tokenizer } from "../tokenizer/types";
import { hermesParser } from "../toolcalls/hermes";
import type { Trajectory } from "../trajectory/types";
import { departureIndex, forkKind, forkPrefix } from "./fork";
import { TitoLedger } from "./ledger";
import { initialPrompt, toolResultSuffix } from "./prompts";

let qwen: Tokenizer;
let parent: Trajectory;
let flat: { ids: number[]; mask: number[]; lps: (number | null)[] };
/** First token of each segment: prompt, model (call), tool, model (answer). */
let starts: number[];

beforeAll(async () => {
  qwen = await loadTokenizer("qwen3");
  const ledger = new TitoLedger();
  ledger.appendPrompt(initialPrompt(qwen, { system: "Use the calculator.", user: "15*7?" }));
  const call = qwen.encode(
    '<tool_call>\n{"name": "calculator", "arguments": {"expression": "15*7"}}\n</tool_call><|im_end|>',
  );
  const callText = qwen.decode(call);
  ledger.appendModel({
    outputIds: call,
    logprobs: call.map((_, i) => -0.1 * (i + 1)),
    text: callText,
    toolCalls: hermesParser.parse(callText).map((c) => ({ ...c, result: "105" })),
    call: { rid: "r1", inputLen: ledger.length, outputLen: call.length, finishReason: null },
  });
  ledger.appendTool(toolResultSuffix(qwen, [{ role: "tool", content: "105" }]));
  const answer = qwen.encode("It is 105.<|im_end|>");
  ledger.appendModel({
    outputIds: answer,
    logprobs: answer.map((_, i) => -0.2 * (i + 1)),
    text: qwen.decode(answer),
    call: { rid: "r2", inputLen: ledger.length, outputLen: answer.length, finishReason: null },
  });
  ledger.annotate(ledger.lastSegmentIndex, { cutoff: true, cutoffReason: "length" });
  parent = ledger.toTrajectory({
    id: "ep_parent",
    status: "completed",
    tokenizer: "qwen3",
    messages: [
      { role: "system", content: "Use the calculator." },
      { role: "user", content: "15*7?" },
      { role: "assistant", content: callText },
      { role: "tool", content: "105" },
      { role: "assistant", content: "It is 105." },
    ],
  });
  flat = { ids: [...ledger.tokenIds()], mask: [...ledger.lossMask()], lps: [...ledger.logprobs()] };
  starts = [];
  let offset = 0;
  for (const s of parent.segments) {
    starts.push(offset);
    offset += s.tokenIds.length;
  }
});

const opts = () => ({ tokenizerName: "qwen3", tokenizer: qwen });

describe("forkPrefix", () => {
  it("at any model token: sends exactly the parent's ids 0..N-1, mask and logprobs copied", () => {
    const modelIndexes = flat.mask.flatMap((m, i) => (m === 1 ? [i] : []));
    fc.assert(
      fc.property(fc.constantFrom(...modelIndexes), (n) => {
        const forked = forkPrefix(parent, n, opts());
        if (!forked.ok) throw new Error(forked.error);
        const { prefix } = forked;
        expect(prefix.inputIds).toEqual(flat.ids.slice(0, n));
        const whole = prefix.segments.flatMap((s) => [...s.tokenIds]);
        const partial = prefix.partial?.tokenIds ?? [];
        expect([...whole, ...partial]).toEqual(flat.ids.slice(0, n));
        const mask = [...prefix.segments.flatMap((s) => [...s.lossMask]), ...partial.map(() => 1)];
        expect(mask).toEqual(flat.mask.slice(0, n));
        const lps = [
          ...prefix.segments.flatMap((s) => [...s.logprobs]),
          ...(prefix.partial?.logprobs ?? []),
        ];
        expect(lps).toEqual(flat.lps.slice(0, n));
        // The partial segment starts where the parent's model segment starts.
        expect(whole.length).toBe(starts.filter((s) => s <= n).at(-1));
        expect(prefix.segments.at(-1)?.kind).not.toBe("model");
        expect(prefix.lineage).toEqual({ parentId: "ep_parent", forkIndex: n });
      }),
    );
  });

  it("counts the tool iterations before the fork and copies the calls that still hold", () => {
    const atAnswer = forkPrefix(parent, starts[3] ?? 0, opts());
    if (!atAnswer.ok) throw new Error(atAnswer.error);
    expect(atAnswer.prefix.counts).toEqual({ toolIterations: 1, toolCalls: 1 });
    expect(atAnswer.prefix.calls.map((c) => c.rid)).toEqual(["r1"]);
    expect(atAnswer.prefix.partial).toBeUndefined();
    expect(atAnswer.prefix.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
    const inCall = forkPrefix(parent, (starts[1] ?? 0) + 3, opts());
    if (!inCall.ok) throw new Error(inCall.error);
    expect(inCall.prefix.counts).toEqual({ toolIterations: 0, toolCalls: 0 });
    expect(inCall.prefix.partial?.tokenIds).toEqual(parent.segments[1]?.tokenIds.slice(0, 3));
  });

  it("at the start of a tool segment keeps the parent's result, or templates an edited one", () => {
    const n = starts[2] ?? 0;
    const kept = forkPrefix(parent, n, opts());
    if (!kept.ok) throw new Error(kept.error);
    expect(kept.prefix.inputIds).toEqual(flat.ids.slice(0, starts[3]));
    expect(kept.prefix.segments.at(-1)?.edited).toBeUndefined();

    const edited = forkPrefix(parent, n, { ...opts(), edit: { toolResults: ["106"] } });
    if (!edited.ok) throw new Error(edited.error);
    const { prefix } = edited;
    const suffix = toolResultSuffix(qwen, [
      { role: "tool", content: "106", tool_call_id: "call_0000" },
    ]);
    const tool = prefix.segments.at(-1);
    expect(tool).toMatchObject({ kind: "tool", edited: true, text: suffix.text });
    expect(tool?.tokenIds).toEqual(suffix.tokenIds);
    expect(tool?.lossMask.every((m) => m === 0)).toBe(true);
    expect(prefix.inputIds).toEqual([...flat.ids.slice(0, n), ...suffix.tokenIds]);
    expect(prefix.inputIds).not.toEqual(flat.ids.slice(0, starts[3]));
    expect(prefix.segments[1]?.toolCalls?.[0]?.result).toBe("106");
    expect(prefix.messages.at(-1)).toMatchObject({ role: "tool", content: "106" });
    expect(prefix.lineage).toEqual({
      parentId: "ep_parent",
      forkIndex: n,
      editedToolResults: ["106"],
    });
    // The parent is never changed.
    expect(parent.segments[1]?.toolCalls?.[0]?.result).toBe("105");
  });

  it("drops the parent's cutoff mark from copied segments", () => {
    const last = parent.segments.length - 1;
    expect(parent.segments[last]?.cutoff).toBe(true);
    const forked = forkPrefix(parent, (starts[last] ?? 0) + 1, opts());
    if (!forked.ok) throw new Error(forked.error);
    expect(forked.prefix.segments.some((s) => s.cutoff)).toBe(false);
  });

  it.each([
    ["a negative index", () => -1, {}, /outside the trajectory/],
    ["the end of the trajectory", () => flat.ids.length, {}, /outside the trajectory/],
    ["a fractional index", () => 2.5, {}, /outside the trajectory/],
    ["token 0", () => 0, {}, /inside the initial prompt/],
    ["the last prompt token", () => (starts[1] ?? 0) - 1, {}, /inside the initial prompt/],
    ["the middle of a tool segment", () => (starts[2] ?? 0) + 1, {}, /inside tool segment 2/],
    [
      "an edit on a model token",
      () => starts[3] ?? 0,
      { edit: { toolResults: ["1"] } },
      /not the start of a tool segment/,
    ],
    [
      "an edit with too many results",
      () => starts[2] ?? 0,
      { edit: { toolResults: ["1", "2"] } },
      /answers 1 tool call\(s\) but the edit has 2/,
    ],
    [
      "another tokenizer",
      () => starts[1] ?? 0,
      { tokenizerName: "llama3" },
      /tokenized with qwen3/,
    ],
  ])("refuses %s", (_name, index, extra, error) => {
    const forked = forkPrefix(parent, index(), { ...opts(), ...extra });
    expect(forked.ok).toBe(false);
    if (!forked.ok) expect(forked.error).toMatch(error);
  });

  it("takes a recorded model name that stands for the same tokenizer, as drift's choice does", () => {
    const named = { ...parent, tokenizer: "Qwen/Qwen3-4B-Instruct-2507" };
    expect(forkPrefix(named, starts[1] ?? 0, opts()).ok).toBe(true);
    const other = { ...parent, tokenizer: "meta-llama/Meta-Llama-3-8B-Instruct" };
    const refused = forkPrefix(other, starts[1] ?? 0, opts());
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(/tokenized with meta-llama/),
    });
  });

  it("continues a trajectory that names no tokenizer when its ids are the given tokenizer's", () => {
    const { tokenizer: _t, ...unnamed } = parent;
    expect(forkPrefix(unnamed, starts[1] ?? 0, opts()).ok).toBe(true);
    const { tokenizer: _q, ...withoutTokenizer } = opts();
    const unchecked = forkPrefix(unnamed, starts[1] ?? 0, withoutTokenizer);
    expect(unchecked).toEqual({ ok: false, error: expect.stringMatching(/records no tokenizer/) });
  });

  it("refuses ids of another family (Llama-3's <|begin_of_text|> first) with the tokenizer's name", () => {
    const { tokenizer: _t, ...unnamed } = parent;
    const [first, ...rest] = unnamed.segments;
    if (!first) throw new Error("no prompt");
    const llamaIds = {
      ...unnamed,
      segments: [{ ...first, tokenIds: [128000, ...first.tokenIds.slice(1)] }, ...rest],
    };
    const forked = forkPrefix(llamaIds, starts[1] ?? 0, opts());
    expect(forked).toEqual({
      ok: false,
      error: expect.stringMatching(/cannot be continued by qwen3: token 0 is 128000, llama3's/),
    });
  });
});

describe("forkKind and departureIndex", () => {
  it("says where a branch may start, as forkPrefix decides", () => {
    for (let n = -1; n <= flat.ids.length; n++) {
      const kind = forkKind(parent.segments, n);
      expect(kind !== undefined).toBe(forkPrefix(parent, n, opts()).ok);
      if (kind === "tool") expect(starts).toContain(n);
    }
    expect(forkKind(parent.segments, starts[2] ?? 0)).toBe("tool");
    expect(forkKind(parent.segments, (starts[1] ?? 0) + 1)).toBe("model");
  });

  it("finds the first differing token at or after the fork", () => {
    expect(departureIndex([1, 2, 3, 4], [1, 2, 9, 4], 1)).toBe(2);
    expect(departureIndex([1, 2, 3, 4], [1, 2, 9, 4], 3)).toBe(4);
    expect(departureIndex([1, 2, 3], [1, 2, 3, 4], 0)).toBe(3);
    expect(departureIndex([1, 2, 3], [1, 2, 3], 0)).toBe(3);
  });
});

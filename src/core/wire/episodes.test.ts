import { describe, expect, it } from "vitest";
import {
  EPISODE_EVENT_TYPES,
  type EpisodeEvent,
  parseEpisodeEvent,
  startEpisodeSchema,
} from "./episodes";

const segment = {
  kind: "model",
  turn: 1,
  tokenIds: [5, 6],
  lossMask: [1, 1],
  logprobs: [-0.5, null],
  text: "<tool_call>x</tool_call>",
  toolCalls: [{ id: "call_0000", name: "calc", arguments: {}, raw: "x", span: [0, 24] }],
  finishReason: { type: "stop", matched: 151645 },
} as const;

const oneOfEach: EpisodeEvent[] = [
  { type: "started", id: "ep_1", upstream: "simulator", model: "sim" },
  { type: "segment", index: 1, segment },
  {
    type: "delta",
    turn: 1,
    ids: [5, 6],
    logprobs: [-0.5, null],
    topLogprobs: [[{ tokenId: 5, logprob: -0.5 }], null],
    text: "<tool",
    tokens: 2,
  },
  {
    type: "call",
    call: {
      rid: "r1",
      inputLen: 10,
      outputLen: 2,
      finishReason: { type: "stop", matched: 151645 },
      cachedTokens: 9,
      upstream: "http://a:1",
    },
  },
  { type: "tool_call", segmentIndex: 1, call: segment.toolCalls[0] },
  {
    type: "tool_result",
    segmentIndex: 1,
    callId: "call_0000",
    name: "calc",
    content: "4",
    isError: false,
  },
  { type: "waiting_human", callId: "call_0000", question: "ok?", timeoutMs: 1000, deadline: 5 },
  { type: "cutoff", segmentIndex: 1, reason: "length" },
  { type: "end", status: "truncated", reason: "max_new_tokens (2) reached" },
];

describe("the episode event schema", () => {
  it("names every event type once, in the order of the union", () => {
    expect(EPISODE_EVENT_TYPES).toEqual(oneOfEach.map((e) => e.type));
  });

  it("parses one event of each type back to itself", () => {
    for (const event of oneOfEach) {
      expect(parseEpisodeEvent(JSON.stringify(event))).toEqual({ ok: true, event });
    }
  });

  it.each([
    ["not JSON", "{", "event data is not JSON"],
    ["an unknown type", '{"type":"nope"}', "field type:"],
    [
      "a mask that is not 0/1",
      JSON.stringify({ type: "segment", index: 0, segment: { ...segment, lossMask: [1, 2] } }),
      "field segment.lossMask.1:",
    ],
    ["a negative segment index", '{"type":"segment","index":-1}', "field index:"],
    ["an unknown status", '{"type":"end","status":"done"}', "field status:"],
  ])("names the field of %s", (_label, data, error) => {
    const parsed = parseEpisodeEvent(data);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });
});

describe("startEpisodeSchema's tool_call_parser", () => {
  it("takes a registered parser and refuses another name, listing the choices", () => {
    expect(startEpisodeSchema.parse({ prompt: "hi", tool_call_parser: "qwen_xml" })).toMatchObject({
      tool_call_parser: "qwen_xml",
    });
    expect(startEpisodeSchema.parse({ prompt: "hi", tool_call_parser: "glm" })).toMatchObject({
      tool_call_parser: "glm",
    });
    const bad = startEpisodeSchema.safeParse({ prompt: "hi", tool_call_parser: "xml" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["tool_call_parser"]);
    expect(bad.error?.issues[0]?.message).toMatch(/one of hermes, .*qwen_xml.*glm/);
  });
});

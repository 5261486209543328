import { describe, expect, it } from "vitest";
import { hermesParser } from "./hermes";

interface Expected {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly raw: string;
  readonly markup: string;
  readonly isError: boolean;
}

const ok = (id: string, name: string, args: Record<string, unknown>, raw: string, markup: string) =>
  ({ id, name, arguments: args, raw, markup, isError: false }) satisfies Expected;
const bad = (id: string, name: string, raw: string, markup: string) =>
  ({ id, name, arguments: {}, raw, markup, isError: true }) satisfies Expected;

// Every rule of docs/tito.md's tool-call parsers, then the other rules of the algorithm.
const cases: ReadonlyArray<{
  readonly label: string;
  readonly text: string;
  readonly calls: Expected[];
}> = [
  {
    label: "§4 row 1: one well-formed call",
    text: '<tool_call>{"name":"calc","arguments":{"x":1}}</tool_call>',
    calls: [
      ok(
        "call_0000",
        "calc",
        { x: 1 },
        '{"name":"calc","arguments":{"x":1}}',
        '<tool_call>{"name":"calc","arguments":{"x":1}}</tool_call>',
      ),
    ],
  },
  {
    label: "§4 row 2: a call inside a think block never runs",
    text: '<think>maybe <tool_call>{"name":"a"}</tool_call></think>ok',
    calls: [],
  },
  {
    label: "§4 row 3: malformed JSON keeps the name from the regex and the raw text",
    text: '<tool_call>{"name": "calc", "arguments": {"x": 1}</tool_call>',
    calls: [
      bad(
        "call_0000",
        "calc",
        '{"name": "calc", "arguments": {"x": 1}',
        '<tool_call>{"name": "calc", "arguments": {"x": 1}</tool_call>',
      ),
    ],
  },
  {
    label: "§4 row 4: missing name is an error; ids count every block",
    text: '<tool_call>{"arguments":{}}</tool_call><tool_call>{"name":"b"}</tool_call>',
    calls: [
      bad(
        "call_0000",
        "unknown_tool",
        '{"arguments":{}}',
        '<tool_call>{"arguments":{}}</tool_call>',
      ),
      ok("call_0001", "b", {}, '{"name":"b"}', '<tool_call>{"name":"b"}</tool_call>'),
    ],
  },
  {
    label: "§4 row 5: an unclosed call cut by max_new_tokens is ignored",
    text: 'Let me check.<tool_call>{"name":"calc","argu',
    calls: [],
  },
  {
    label: "Qwen3 layout with newlines: raw drops the surrounding whitespace",
    text: 'Sure.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "15*7"}}\n</tool_call>',
    calls: [
      ok(
        "call_0000",
        "calculator",
        { expression: "15*7" },
        '{"name": "calculator", "arguments": {"expression": "15*7"}}',
        '<tool_call>\n{"name": "calculator", "arguments": {"expression": "15*7"}}\n</tool_call>',
      ),
    ],
  },
  {
    label: "spans refer to the original text after a think block",
    text: '<think>\nplan: <tool_call>{"name":"x"}</tool_call>\n</think>\n\nA<tool_call>{"name":"y","arguments":[1]}</tool_call>',
    calls: [
      ok(
        "call_0000",
        "y",
        {},
        '{"name":"y","arguments":[1]}',
        '<tool_call>{"name":"y","arguments":[1]}</tool_call>',
      ),
    ],
  },
  {
    label: "arguments that are not an object become {} without an error",
    text: '<tool_call>{"name":"s","arguments":"x=1"}</tool_call>',
    calls: [
      ok(
        "call_0000",
        "s",
        {},
        '{"name":"s","arguments":"x=1"}',
        '<tool_call>{"name":"s","arguments":"x=1"}</tool_call>',
      ),
    ],
  },
  {
    label: "a JSON value that is not an object is an error",
    text: "<tool_call>[1, 2]</tool_call>",
    calls: [bad("call_0000", "unknown_tool", "[1, 2]", "<tool_call>[1, 2]</tool_call>")],
  },
  {
    label: "a non-string name is an error",
    text: '<tool_call>{"name": 3}</tool_call>',
    calls: [bad("call_0000", "unknown_tool", '{"name": 3}', '<tool_call>{"name": 3}</tool_call>')],
  },
  {
    label: "an unclosed think block hides nothing",
    text: '<think>hmm <tool_call>{"name":"a"}</tool_call>',
    calls: [ok("call_0000", "a", {}, '{"name":"a"}', '<tool_call>{"name":"a"}</tool_call>')],
  },
  {
    label: "a closed call followed by an unclosed one yields only the first",
    text: '<tool_call>{"name":"a"}</tool_call> then <tool_call>{"name":"b"',
    calls: [ok("call_0000", "a", {}, '{"name":"a"}', '<tool_call>{"name":"a"}</tool_call>')],
  },
  { label: "plain answer", text: "15 × 7 = 105.<|im_end|>", calls: [] },
];

describe("hermesParser", () => {
  it.each(cases)("$label", ({ text, calls }) => {
    const parsed = hermesParser.parse(text);
    expect(
      parsed.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, raw: c.raw })),
    ).toEqual(calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, raw: c.raw })));
    parsed.forEach((call, i) => {
      expect(text.slice(call.span[0], call.span[1])).toBe(calls[i]?.markup);
      expect(call.error !== undefined).toBe(calls[i]?.isError);
    });
  });

  it("names the JSON problem in the error", () => {
    const [call] = hermesParser.parse('<tool_call>{"name": "calc",</tool_call>');
    expect(call?.error).toMatch(/^invalid JSON: /);
  });

  it("gives a span covering a think block removed from inside the call markup", () => {
    // Python deletes think blocks before matching, so this is one call; its span must still slice
    // the original text from `<tool_call>` to `</tool_call>`.
    const text = 'x<tool_call>{"name":"a"<think>oops</think>}</tool_call>';
    const [call] = hermesParser.parse(text);
    expect(call?.name).toBe("a");
    expect(call?.span).toEqual([1, text.length]);
  });
});

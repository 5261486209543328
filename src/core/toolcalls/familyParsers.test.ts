import { describe, expect, it } from "vitest";
import { deepseekParser } from "./deepseek";
import { harmonyParser, parseHarmonyMessages } from "./harmony";
import { llamaJsonParser } from "./llamaJson";
import { getToolCallParser } from "./registry";

describe("llama3_json (Llama 3.1 <|python_tag|> JSON calls)", () => {
  it("reads one call with its parameters and span", () => {
    const text =
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "23*19"}}<|eom_id|>';
    const [call, ...rest] = llamaJsonParser.parse(text);
    expect(rest).toEqual([]);
    expect(call).toMatchObject({
      id: "call_0000",
      name: "calculator",
      arguments: { expression: "23*19" },
    });
    expect(text.slice(...(call?.span ?? [0, 0]))).toBe(
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "23*19"}}',
    );
  });

  it("reads calls separated by ';', a bad one as an error, and prose as no call", () => {
    const calls = llamaJsonParser.parse(
      '{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": }',
    );
    expect(calls.map((c) => [c.name, c.error === undefined])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(llamaJsonParser.parse('The answer is {"name": 1}.')).toEqual([]);
  });
});

describe("deepseek_v3", () => {
  it("reads each <｜tool▁call▁begin｜> block", () => {
    const text =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator\n```json\n{"expression": "2+2"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>';
    const [call] = deepseekParser.parse(text);
    expect(call).toMatchObject({ name: "calculator", arguments: { expression: "2+2" } });
    expect(text.slice(...(call?.span ?? [0, 0]))).toMatch(
      /^<｜tool▁call▁begin｜>.*<｜tool▁call▁end｜>$/s,
    );
  });
});

describe("harmony (gpt-oss)", () => {
  const turn =
    '<|channel|>analysis<|message|>Need the tool.<|end|><|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression":"23*19"}<|call|>';

  it("splits a turn into its messages", () => {
    expect(parseHarmonyMessages(turn).map((m) => [m.channel, m.recipient, m.end])).toEqual([
      ["analysis", undefined, "<|end|>"],
      ["commentary", "functions.calculator", "<|call|>"],
    ]);
  });

  it("a message with a recipient is a call; the recipient may sit in the role part", () => {
    expect(harmonyParser.parse(turn)).toMatchObject([
      { id: "call_0000", name: "calculator", arguments: { expression: "23*19" } },
    ]);
    const [call] = harmonyParser.parse(
      '<|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>{"q": 1}<|call|>',
    );
    expect(call).toMatchObject({ name: "lookup", arguments: { q: 1 } });
  });

  it("a call not closed by <|call|> is an error; a final answer is no call", () => {
    const [cut] = harmonyParser.parse(
      '<|channel|>commentary to=functions.calculator<|message|>{"expr',
    );
    expect(cut?.error).toMatch(/not closed by <\|call\|>/);
    expect(harmonyParser.parse("<|channel|>final<|message|>437<|return|>")).toEqual([]);
  });

  it("is registered by name with the other family parsers", () => {
    expect(getToolCallParser("harmony")).toBe(harmonyParser);
    expect(getToolCallParser("llama3_json")).toBe(llamaJsonParser);
    expect(getToolCallParser("deepseek_v3")).toBe(deepseekParser);
  });
});

import { describe, expect, it } from "vitest";
import { qwenXmlParser } from "./qwenXml";

const cases = [
  {
    label: "Qwen3-Coder layout, values trimmed and kept as strings",
    text: "Checking.\n<tool_call>\n<function=calculator>\n<parameter=expression>\n15*7\n</parameter>\n<parameter=precision>2</parameter>\n</function>\n</tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "calculator",
        arguments: { expression: "15*7", precision: "2" },
        error: false,
        markup:
          "<tool_call>\n<function=calculator>\n<parameter=expression>\n15*7\n</parameter>\n<parameter=precision>2</parameter>\n</function>\n</tool_call>",
      },
    ],
  },
  {
    label: "missing <function=…> is an unknown_tool error",
    text: "<tool_call><parameter=x>1</parameter></tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "unknown_tool",
        arguments: {},
        error: true,
        markup: "<tool_call><parameter=x>1</parameter></tool_call>",
      },
    ],
  },
  {
    label: "blank function name is an error; the next call is numbered call_0001",
    text: "<tool_call><function= ></function></tool_call><tool_call><function=f></function></tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "unknown_tool",
        arguments: {},
        error: true,
        markup: "<tool_call><function= ></function></tool_call>",
      },
      {
        id: "call_0001",
        name: "f",
        arguments: {},
        error: false,
        markup: "<tool_call><function=f></function></tool_call>",
      },
    ],
  },
  {
    label: "think blocks are skipped, spans stay in the original text",
    text: "<think><tool_call><function=a></function></tool_call></think>ok <tool_call><function=b><parameter=p> v </parameter></function></tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "b",
        arguments: { p: "v" },
        error: false,
        markup: "<tool_call><function=b><parameter=p> v </parameter></function></tool_call>",
      },
    ],
  },
  { label: "unclosed call ignored", text: "<tool_call><function=a><parameter=p>1", calls: [] },
];

describe("qwenXmlParser", () => {
  it.each(cases)("$label", ({ text, calls }) => {
    const parsed = qwenXmlParser.parse(text);
    expect(parsed.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))).toEqual(
      calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    );
    parsed.forEach((call, i) => {
      expect(text.slice(call.span[0], call.span[1])).toBe(calls[i]?.markup);
      expect(call.error !== undefined).toBe(calls[i]?.error);
      expect(call.raw).toBe(
        calls[i]?.markup.slice("<tool_call>".length, -"</tool_call>".length).trim(),
      );
    });
  });
});

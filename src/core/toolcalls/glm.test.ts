import { describe, expect, it } from "vitest";
import { glmParser } from "./glm";

const cases = [
  {
    label: "GLM-4.5 layout: JSON values decoded, plain text kept as strings",
    text: 'I will search.<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>tito drift</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n<arg_key>filters</arg_key>\n<arg_value>{"lang": "en"}</arg_value>\n</tool_call>',
    calls: [
      {
        id: "call_0000",
        name: "search",
        arguments: { query: "tito drift", limit: 5, filters: { lang: "en" } },
        error: false,
        markup:
          '<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>tito drift</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n<arg_key>filters</arg_key>\n<arg_value>{"lang": "en"}</arg_value>\n</tool_call>',
      },
    ],
  },
  {
    label: "a call with no arguments",
    text: "<tool_call>now\n</tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "now",
        arguments: {},
        error: false,
        markup: "<tool_call>now\n</tool_call>",
      },
    ],
  },
  {
    label: "missing name (first line is a tag) is an unknown_tool error",
    text: "<tool_call><arg_key>q</arg_key><arg_value>x</arg_value></tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "unknown_tool",
        arguments: {},
        error: true,
        markup: "<tool_call><arg_key>q</arg_key><arg_value>x</arg_value></tool_call>",
      },
    ],
  },
  {
    label: "think blocks skipped; two calls numbered in order",
    text: "<think><tool_call>x\n</tool_call></think><tool_call>a\n</tool_call> <tool_call>b\n<arg_key>k</arg_key><arg_value>true</arg_value></tool_call>",
    calls: [
      {
        id: "call_0000",
        name: "a",
        arguments: {},
        error: false,
        markup: "<tool_call>a\n</tool_call>",
      },
      {
        id: "call_0001",
        name: "b",
        arguments: { k: true },
        error: false,
        markup: "<tool_call>b\n<arg_key>k</arg_key><arg_value>true</arg_value></tool_call>",
      },
    ],
  },
  { label: "unclosed call ignored", text: "<tool_call>a\n<arg_key>k", calls: [] },
];

describe("glmParser", () => {
  it.each(cases)("$label", ({ text, calls }) => {
    const parsed = glmParser.parse(text);
    expect(parsed.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))).toEqual(
      calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    );
    parsed.forEach((call, i) => {
      expect(text.slice(call.span[0], call.span[1])).toBe(calls[i]?.markup);
      expect(call.error !== undefined).toBe(calls[i]?.error);
    });
  });
});

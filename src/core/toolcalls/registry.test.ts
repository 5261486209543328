import { describe, expect, it } from "vitest";
import { errorToolResult } from "./errorResult";
import { getToolCallParser, toolCallParserNames } from "./registry";

describe("getToolCallParser", () => {
  it.each([
    ["hermes", "hermes"],
    ["qwen", "hermes"],
    ["qwen_xml", "qwen_xml"],
    ["qwen-xml", "qwen_xml"],
    ["glm", "glm"],
  ])("%s -> %s", (name, parserName) => {
    expect(getToolCallParser(name).name).toBe(parserName);
  });

  it("rejects an unknown name and lists the known ones", () => {
    expect(() => getToolCallParser("mistral")).toThrow(
      `unknown tool-call parser "mistral"; known parsers: ${toolCallParserNames.join(", ")}`,
    );
  });
});

describe("errorToolResult", () => {
  it("quotes the raw call back with the error and the intended tool", () => {
    const [call] = getToolCallParser("hermes").parse(
      '<tool_call>{"name": "calc", "x": </tool_call>',
    );
    if (!call) throw new Error("expected one parsed call");
    const text = errorToolResult(call);
    expect(text).toContain('call_0000 to "calc"');
    expect(text).toContain(call.error);
    expect(text).toContain('\n{"name": "calc", "x":\n');
  });

  it("omits the tool name when it could not be recovered", () => {
    const [call] = getToolCallParser("glm").parse("<tool_call><arg_key>a</arg_key></tool_call>");
    if (!call) throw new Error("expected one parsed call");
    expect(errorToolResult(call)).toMatch(
      /^Error: your tool call call_0000 could not be parsed: missing function name\./,
    );
  });

  it("refuses a call that parsed fine", () => {
    const [call] = getToolCallParser("hermes").parse('<tool_call>{"name":"a"}</tool_call>');
    if (!call) throw new Error("expected one parsed call");
    expect(() => errorToolResult(call)).toThrow(/call_0000 \(a\) parsed fine/);
  });
});

import type { ToolCall } from "../trajectory/types";
import { findCallBlocks } from "./markup";
import { callId, type ToolCallParser, UNKNOWN_TOOL } from "./types";

const FUNCTION = /<function=([^>]+)>([\s\S]*?)<\/function>/;
const PARAMETER = /<parameter=([^>]+)>([\s\S]*?)<\/parameter>/g;

function parseQwenXmlCall(id: string, raw: string, span: readonly [number, number]): ToolCall {
  const fn = FUNCTION.exec(raw);
  const name = fn?.[1]?.trim() ?? "";
  if (!fn || name === "") {
    const error = fn
      ? "empty function name in <function=…>"
      : "missing <function=NAME>…</function>";
    return { id, name: UNKNOWN_TOOL, arguments: {}, raw, span, error };
  }
  const args: Record<string, unknown> = {};
  for (const param of (fn[2] ?? "").matchAll(PARAMETER)) {
    const key = param[1]?.trim() ?? "";
    // Values stay strings: the format carries no types (the tool's schema decides).
    if (key !== "") args[key] = (param[2] ?? "").trim();
  }
  return { id, name, arguments: args, raw, span };
}

/** Qwen3-Coder `<tool_call><function=NAME><parameter=P>v</parameter>…`; spans in characters of `text`. */
export const qwenXmlParser: ToolCallParser = {
  name: "qwen_xml",
  parse(text) {
    return findCallBlocks(text).map((block, i) =>
      parseQwenXmlCall(callId(i), block.inner.trim(), block.span),
    );
  },
};

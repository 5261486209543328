import type { ToolCall } from "../trajectory/types";
import { findCallBlocks } from "./markup";
import { callId, type ToolCallParser, UNKNOWN_TOOL } from "./types";

const ARG_PAIR = /<arg_key>\s*([\s\S]*?)\s*<\/arg_key>\s*<arg_value>\s*([\s\S]*?)\s*<\/arg_value>/g;

/** A value is JSON when it parses as JSON (numbers, objects, …), otherwise the plain string. */
function decodeValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseGlmCall(id: string, raw: string, span: readonly [number, number]): ToolCall {
  const newline = raw.indexOf("\n");
  const name = (newline === -1 ? raw : raw.slice(0, newline)).trim();
  // A `<`/`>` in the name means the first line was already an <arg_key> tag: no name was written.
  if (name === "" || name.includes("<") || name.includes(">")) {
    return { id, name: UNKNOWN_TOOL, arguments: {}, raw, span, error: "missing function name" };
  }
  const args: Record<string, unknown> = {};
  const rest = newline === -1 ? "" : raw.slice(newline + 1);
  for (const pair of rest.matchAll(ARG_PAIR)) {
    args[(pair[1] ?? "").trim()] = decodeValue((pair[2] ?? "").trim());
  }
  return { id, name, arguments: args, raw, span };
}

/** GLM-4.5 `<tool_call>NAME\n<arg_key>k</arg_key><arg_value>v</arg_value>…`; spans in characters. */
export const glmParser: ToolCallParser = {
  name: "glm",
  parse(text) {
    return findCallBlocks(text).map((block, i) =>
      parseGlmCall(callId(i), block.inner.trim(), block.span),
    );
  },
};

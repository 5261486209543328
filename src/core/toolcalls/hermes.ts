import { isRecord } from "../isRecord";
import type { ToolCall } from "../trajectory/types";
import { findCallBlocks } from "./markup";
import { callId, type ToolCallParser, UNKNOWN_TOOL } from "./types";

const NAME_IN_RAW = /"name"\s*:\s*"([^"]+)"/;

function errorCall(id: string, raw: string, span: readonly [number, number], error: string) {
  // The name is recovered from the raw text so the error result can say which tool was meant.
  const name = NAME_IN_RAW.exec(raw)?.[1] ?? UNKNOWN_TOOL;
  return { id, name, arguments: {}, raw, span, error };
}

/** Parses one `<tool_call>` inner text (JSON `{"name", "arguments"}`) per strands-sglang's Hermes rules. */
function parseHermesCall(id: string, raw: string, span: readonly [number, number]): ToolCall {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return errorCall(id, raw, span, `invalid JSON: ${reason}`);
  }
  if (!isRecord(parsed)) return errorCall(id, raw, span, "the tool call is not a JSON object");
  const { name, arguments: args } = parsed;
  if (typeof name !== "string") {
    return errorCall(id, raw, span, 'the tool call has no string "name"');
  }
  // Missing or non-object arguments are not an error (schema validation belongs to the tool).
  return { id, name, arguments: isRecord(args) ? args : {}, raw, span };
}

/** Hermes/Qwen `<tool_call>{json}</tool_call>`; spans are [start, end) characters of `text`. */
export const hermesParser: ToolCallParser = {
  name: "hermes",
  parse(text) {
    return findCallBlocks(text).map((block, i) =>
      parseHermesCall(callId(i), block.inner, block.span),
    );
  },
};

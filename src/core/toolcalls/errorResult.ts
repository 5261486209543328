import type { ToolCall } from "../trajectory/types";
import { UNKNOWN_TOOL } from "./types";

/** The tool-result text fed back for a malformed call, quoting its raw text so the model can fix it. */
export function errorToolResult(call: ToolCall): string {
  if (call.error === undefined) {
    throw new Error(`tool call ${call.id} (${call.name}) parsed fine: it needs a real tool result`);
  }
  const target = call.name === UNKNOWN_TOOL ? "" : ` to "${call.name}"`;
  return [
    `Error: your tool call ${call.id}${target} could not be parsed: ${call.error}.`,
    "You wrote:",
    call.raw,
    "No tool was run. Write the call again in the expected format.",
  ].join("\n");
}

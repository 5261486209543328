import { isRecord } from "../isRecord";
import type { ToolCall } from "../trajectory/types";
import { callId, type ToolCallParser, UNKNOWN_TOOL } from "./types";

/**
 * Llama 3.1 JSON tool calls (Meta's Llama 3.1 prompt format, see docs/templates.md): the
 * model answers `<|python_tag|>{"name": "...", "parameters": {...}}`, optionally several objects
 * separated by `;`. An answer that does not start with `<|python_tag|>` or `{` is prose, not a call.
 */

const PYTHON_TAG = "<|python_tag|>";

/** End (exclusive) of the JSON object starting at `start` (a `{`), or -1 when it never closes. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function parseCall(index: number, raw: string, span: readonly [number, number]): ToolCall {
  const id = callId(index);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const name = /"name"\s*:\s*"([^"]+)"/.exec(raw)?.[1] ?? UNKNOWN_TOOL;
    const reason = error instanceof Error ? error.message : String(error);
    return { id, name, arguments: {}, raw, span, error: `invalid JSON: ${reason}` };
  }
  if (!isRecord(parsed) || typeof parsed.name !== "string") {
    return {
      id,
      name: UNKNOWN_TOOL,
      arguments: {},
      raw,
      span,
      error: 'the tool call has no string "name"',
    };
  }
  const args = parsed.parameters ?? parsed.arguments;
  return { id, name: parsed.name, arguments: isRecord(args) ? args : {}, raw, span };
}

export const llamaJsonParser: ToolCallParser = {
  name: "llama3_json",
  parse(text) {
    const lead = text.length - text.trimStart().length;
    let at = lead;
    if (text.startsWith(PYTHON_TAG, at)) at += PYTHON_TAG.length;
    else if (text[at] !== "{") return [];
    const calls: ToolCall[] = [];
    for (;;) {
      while (at < text.length && /[\s;]/.test(text[at] ?? "")) at++;
      if (text[at] !== "{") break;
      const end = objectEnd(text, at);
      if (end === -1) {
        calls.push({ ...parseCall(calls.length, text.slice(at), [at, text.length]) });
        break;
      }
      const start = calls.length === 0 && text.startsWith(PYTHON_TAG, lead) ? lead : at;
      calls.push(parseCall(calls.length, text.slice(at, end), [start, end]));
      at = end;
    }
    return calls;
  },
};

import { FAMILIES, familyOfName } from "../families/families";
import type { Family } from "../families/types";
import type { Segment, Trajectory } from "./types";

/** Chat-template markers left over in a text (`<|im_end|>`, `<|eot_id|>`, `<end_of_turn>`, ...). */
const MARKER = /<\|[a-z_]+\|>|<(?:start|end)_of_turn>|<｜[^｜]*｜>/g;

/**
 * The family a model turn's text was written in: the record's tokenizer or model name, else the
 * first family whose end-of-turn token (or, for Harmony, channel marker) the text holds, else
 * the default family (Qwen3, the server's default tokenizer).
 */
function familyOf(t: Trajectory, text: string): Family | undefined {
  const named = familyOfName(t.tokenizer) ?? familyOfName(t.model);
  if (named) return named;
  const found = FAMILIES.find(
    (f) =>
      (f.answer?.channel !== undefined && text.includes("<|channel|>")) ||
      f.stopTokens.some((s) => text.includes(s.text)),
  );
  return found ?? FAMILIES[0];
}

/** The message of Harmony channel `channel` last written in `text` (to `<|return|>`/`<|end|>`). */
function channelMessage(text: string, channel: string): string | undefined {
  const open = `<|channel|>${channel}<|message|>`;
  const at = text.lastIndexOf(open);
  if (at < 0) return undefined;
  const body = text.slice(at + open.length);
  const end = body.search(/<\|(?:return|end|call)\|>/);
  return end < 0 ? body : body.slice(0, end);
}

/** `text` without every `[open, close)` block (an unclosed block runs to the end). */
function withoutBlocks(text: string, open: string, close: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const start = text.indexOf(open, at);
    if (start < 0) return out + text.slice(at);
    out += text.slice(at, start);
    const end = text.indexOf(close, start + open.length);
    if (end < 0) return out;
    at = end + close.length;
  }
}

/** The answer in one model turn's text, read with the family's syntax (family data, not names). */
export function answerOfText(
  text: string,
  family: Family | undefined,
  segment?: Segment,
): string | undefined {
  const answer = family?.answer;
  let out = text;
  if (answer?.channel !== undefined) {
    const message = channelMessage(text, answer.channel);
    if (message === undefined) return undefined;
    out = message;
  }
  if (answer?.reasoning) out = withoutBlocks(out, ...answer.reasoning);
  for (const call of segment?.toolCalls ?? []) out = out.replace(call.raw, "");
  // Qwen-style tool calls a segment may hold without parsed calls (a record read from a file).
  out = withoutBlocks(out, "<tool_call>", "</tool_call>");
  for (const stop of family?.stopTokens ?? []) out = out.split(stop.text).join("");
  out = out.replace(MARKER, "").trim();
  return out === "" ? undefined : out;
}

/**
 * The visible answer of the last model segment: its text without reasoning, tool calls and
 * end-of-turn tokens, as its family writes them (Harmony's `final` channel, Qwen's and
 * DeepSeek's `<think>`, Llama's `<|eot_id|>`, Gemma's `<end_of_turn>`); undefined when the last
 * model turn has no answer left.
 */
export function finalAnswer(trajectory: Trajectory): string | undefined {
  const last = trajectory.segments.findLast((s) => s.kind === "model");
  const text = last?.text;
  if (text === undefined || last === undefined) return undefined;
  return answerOfText(text, familyOf(trajectory, text), last);
}

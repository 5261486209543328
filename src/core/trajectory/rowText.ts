import { canonicalRole } from "./roles";
import type { ChatMessage, Trajectory } from "./types";

/**
 * The conversation a record keeps beside its token ids, in the form it keeps it: role/content
 * messages (what a chat template renders), one rendered text (atropos environments that store
 * `messages` as strings, e.g. a Markdown transcript), or nothing, with why.
 */
export type RowMessages =
  | { readonly kind: "messages"; readonly messages: readonly ChatMessage[] }
  | { readonly kind: "rendered"; readonly text: string }
  | { readonly kind: "none"; readonly reason: string };

/** Why a template cannot render rendered text (the template check and the per-turn check say it). */
export const RENDERED_MESSAGES_REASON =
  "its messages are rendered text (atropos `messages` as strings), not role/content messages a " +
  "chat template can render";

const NO_MESSAGES = "the record carries no messages";

/** A rendered conversation: a string, or a list of strings (one per message) joined by newlines. */
function renderedText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) {
    return value.join("\n");
  }
  return undefined;
}

/**
 * The messages of `t`: its role/content messages when the format read them, else the rendered text
 * an atropos group keeps in `metadata.messages` (row `source.row` of the group's list), else why
 * there is none.
 */
export function rowMessages(t: Trajectory): RowMessages {
  if (t.messages && t.messages.length > 0) return { kind: "messages", messages: t.messages };
  const kept: unknown = t.metadata.messages;
  if (kept === undefined || kept === null) return { kind: "none", reason: NO_MESSAGES };
  const whole = typeof kept === "string" ? kept : undefined;
  const own: unknown = Array.isArray(kept) ? kept[t.source.row ?? 0] : undefined;
  const text = whole ?? renderedText(own);
  if (text !== undefined) return { kind: "rendered", text };
  return {
    kind: "none",
    reason:
      "its `messages` are neither role/content messages (each a string `content`) nor rendered " +
      "text, so the record's text cannot be read",
  };
}

/** The record's conversation as one text (message contents or the rendered text); undefined: none. */
export function rowText(t: Trajectory): string | undefined {
  const m = rowMessages(t);
  if (m.kind === "rendered") return m.text;
  if (m.kind === "messages") return m.messages.map((x) => x.content).join("\n");
  return undefined;
}

/** A `### role` heading line of a rendered transcript (atropos environments write them). */
const HEADING = /^### ([A-Za-z_]+)[ \t]*$/gm;

/**
 * The messages of a rendered transcript whose every part opens with a `### role` heading of a
 * known role (core/trajectory/roles.ts), for writers that need each turn's words (ATIF); undefined
 * when the text is not such a transcript. A chat template never renders these: they are the
 * transcript's words, not the strings the model saw.
 */
export function renderedMessages(text: string): ChatMessage[] | undefined {
  const heads = [...text.matchAll(HEADING)];
  if (heads.length === 0 || text.slice(0, heads[0]?.index).trim() !== "") return undefined;
  const messages: ChatMessage[] = [];
  for (const [k, head] of heads.entries()) {
    const role = head[1] ?? "";
    if (canonicalRole(role) === undefined) return undefined;
    const from = (head.index ?? 0) + head[0].length + 1;
    const to = heads[k + 1]?.index ?? text.length;
    messages.push({ role, content: text.slice(from, to).replace(/\n+$/, "") });
  }
  return messages;
}

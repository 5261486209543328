import { canonicalRole } from "./roles";
import { RENDERED_MESSAGES_REASON, renderedMessages, rowMessages } from "./rowText";
import type { Trajectory } from "./types";

/** The text of each model turn and of the first user message, for writers that need words. */
export interface TurnTexts {
  /** The first user message (roles read through core/trajectory/roles: `environment` too). */
  readonly firstUser: string | undefined;
  /** One per model segment, in order: its decoded text, else the matching assistant message. */
  readonly model: readonly (string | undefined)[];
  /** Why some model turn has no text (segments not decoded and no message to match), if one. */
  readonly missing?: string;
}

/**
 * The words of `t`'s turns: a model segment's own `text` when it was decoded, else the k-th
 * assistant message (`agent` and other aliases included) for the k-th model segment.
 */
export function turnTexts(t: Trajectory): TurnTexts {
  const m = rowMessages(t);
  const messages =
    m.kind === "messages"
      ? m.messages
      : m.kind === "rendered"
        ? (renderedMessages(m.text) ?? [])
        : [];
  const firstUser = messages.find((x) => canonicalRole(x.role) === "user")?.content;
  const assistant = messages.filter((x) => canonicalRole(x.role) === "assistant");
  const model = t.segments
    .filter((s) => s.kind === "model")
    .map((s, k) => s.text ?? assistant[k]?.content);
  if (model.every((x) => x !== undefined)) return { firstUser, model };
  const why =
    m.kind === "rendered"
      ? RENDERED_MESSAGES_REASON
      : m.kind === "none"
        ? m.reason
        : `it has ${assistant.length} assistant message(s) for ${model.length} model turn(s)`;
  return {
    firstUser,
    model,
    missing: `some model turns have no text: their tokens were not decoded and ${why}`,
  };
}

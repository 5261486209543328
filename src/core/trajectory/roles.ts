/**
 * Message roles as producers write them, and what each means. Chat templates know `system`,
 * `user`, `assistant` and `tool`; agent environments and other tools write their own names for
 * the same parts (docs/format.md#message-roles). Only the meaning is read through this table: a
 * template still renders the role as recorded, since those are the tokens the model saw.
 */

/** The four roles every chat template knows. */
export type CanonicalRole = "system" | "user" | "assistant" | "tool";

/** Role names producers write for a canonical role, and who writes them. */
export const ROLE_ALIASES: Readonly<Record<string, CanonicalRole>> = {
  // atropos text-game environments (e.g. the Rubik's cube env): the policy and its environment.
  agent: "assistant",
  environment: "user",
  env: "user",
  // ShareGPT (`from`: human / gpt) and other chat dumps.
  human: "user",
  gpt: "assistant",
  bot: "assistant",
  // Gemma templates and the Gemini API call the assistant `model`.
  model: "assistant",
  // OpenAI's `developer` (and Harmony's) sits where `system` does.
  developer: "system",
  // A tool's answer: Llama 3.1 (`ipython`), OpenAI's legacy `function`, GLM's `observation`.
  ipython: "tool",
  function: "tool",
  observation: "tool",
};

const CANONICAL: Readonly<Record<string, CanonicalRole>> = {
  system: "system",
  user: "user",
  assistant: "assistant",
  tool: "tool",
};

/**
 * What a recorded role means: itself when canonical, its alias (case-insensitive) when known,
 * else undefined (a role no producer we know writes).
 */
export function canonicalRole(role: string): CanonicalRole | undefined {
  const lower = role.toLowerCase();
  if (Object.hasOwn(CANONICAL, lower)) return CANONICAL[lower];
  return Object.hasOwn(ROLE_ALIASES, lower) ? ROLE_ALIASES[lower] : undefined;
}

/** True when a recorded role is the model's own turn (`assistant` or one of its aliases). */
export function isAssistantRole(role: string): boolean {
  return canonicalRole(role) === "assistant";
}

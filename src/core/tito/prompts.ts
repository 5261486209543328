import { familyById } from "../families/families";
import type { Family } from "../families/types";
import type {
  ChatTemplateMessage,
  ChatTemplateOptions,
  Tokenizer,
  ToolSchema,
} from "../tokenizer/types";

/** Prompt tokens plus the exact text they encode (for the segment's `text`). */
export interface PromptTokens {
  readonly tokenIds: number[];
  readonly text: string;
}

export interface InitialPromptInput {
  readonly system?: string;
  readonly user: string;
  readonly tools?: readonly ToolSchema[];
  readonly enableThinking?: boolean;
}

/** Segment 0: the chat template over system + user (+ tool schemas), generation prompt on. */
export function initialPrompt(tokenizer: Tokenizer, input: InitialPromptInput): PromptTokens {
  const text = initialPromptText(tokenizer, input);
  return { tokenIds: tokenizer.encode(text), text };
}

/** The text of segment 0 (initialPrompt), to encode elsewhere (a long prompt, off the event loop). */
export function initialPromptText(tokenizer: Tokenizer, input: InitialPromptInput): string {
  const messages: ChatTemplateMessage[] = [];
  if (input.system !== undefined) messages.push({ role: "system", content: input.system });
  messages.push({ role: "user", content: input.user });
  return tokenizer.applyChatTemplate(messages, {
    addGenerationPrompt: true,
    ...(input.tools && input.tools.length > 0 ? { tools: input.tools } : {}),
    ...(input.enableThinking === undefined ? {} : { enableThinking: input.enableThinking }),
  });
}

const MARKER = "__M__";
const separators = new WeakMap<Tokenizer, string>();

/**
 * The text a chat template puts after an assistant turn's end-of-turn token and before the next
 * message (`\n` for Qwen, `` for Llama-3/GLM), detected from the template as strands-sglang v0.4
 * does: render [user, assistant "__M__"], encode what follows the marker, drop the end-of-turn token.
 * One refinement: the result stops at the first added token, because some templates (the bundled
 * Llama-3 one) append the next header or generation prompt whatever `add_generation_prompt` says.
 */
export function detectSeparator(tokenizer: Tokenizer): string {
  const cached = separators.get(tokenizer);
  if (cached !== undefined) return cached;
  const rendered = tokenizer.applyChatTemplate([
    { role: "user", content: "U" },
    { role: "assistant", content: MARKER },
  ]);
  const at = rendered.lastIndexOf(MARKER);
  if (at === -1) {
    throw new Error(`tokenizer ${tokenizer.id}: the chat template dropped the assistant content`);
  }
  const after = tokenizer.encode(rendered.slice(at + MARKER.length));
  const [endOfTurn, ...rest] = after;
  if (endOfTurn === undefined || !tokenizer.isAdded(endOfTurn)) {
    throw new Error(
      `tokenizer ${tokenizer.id}: the chat template closes an assistant turn with ` +
        `${JSON.stringify(rendered.slice(at + MARKER.length))}, which does not start with an ` +
        "end-of-turn token; cannot tell the model's last token from the template's separator",
    );
  }
  const firstAdded = rest.findIndex((id) => tokenizer.isAdded(id));
  const separatorIds = firstAdded === -1 ? rest : rest.slice(0, firstAdded);
  // Guarded because the transformers.js decoder throws on an empty id list.
  const separator = separatorIds.length === 0 ? "" : tokenizer.decode(separatorIds);
  separators.set(tokenizer, separator);
  return separator;
}

export interface SuffixOptions {
  /** Overrides the detected separator (tests, odd templates). */
  readonly separator?: string;
  /** Must match the initial prompt: Qwen3's generation prompt depends on it. */
  readonly enableThinking?: boolean;
}

const FAKE_PREFIX: readonly ChatTemplateMessage[] = [
  { role: "system", content: "__TITO_SYSTEM__" },
  { role: "user", content: "__TITO_USER__" },
];

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const STAND_IN_ASSISTANT = "__TITO_ASSISTANT__";

/**
 * For a template that insists on alternating roles (Gemma 3), a user reply cannot follow the fake
 * user message: render it after a stand-in assistant turn and keep what follows that turn's stop
 * token (the separator included, as the template writes it).
 */
function afterAssistantSuffix(
  tokenizer: Tokenizer,
  family: Family,
  newMessages: readonly ChatTemplateMessage[],
  thinking: { enableThinking?: boolean },
): string {
  const full = tokenizer.applyChatTemplate(
    [...FAKE_PREFIX, { role: "assistant", content: STAND_IN_ASSISTANT }, ...newMessages],
    { addGenerationPrompt: true, ...thinking },
  );
  const at = full.lastIndexOf(STAND_IN_ASSISTANT);
  const after = at === -1 ? "" : full.slice(at + STAND_IN_ASSISTANT.length);
  const stop = family.stopTokens.find((t) => after.startsWith(t.text));
  if (stop === undefined) {
    throw new Error(
      `tokenizer ${tokenizer.id}: the ${family.label} template does not close an assistant turn ` +
        `with ${family.stopTokens.map((t) => t.text).join(" or ")}`,
    );
  }
  return after.slice(stop.text.length);
}

/**
 * The template over `messages` with no generation prompt after them: `add_generation_prompt` off,
 * and the prompt a family's template appends regardless (the bundled Llama-3 one) cut off.
 */
export function renderWithoutGenerationPrompt(
  tokenizer: Tokenizer,
  messages: readonly ChatTemplateMessage[],
  options: ChatTemplateOptions = {},
): string {
  const text = tokenizer.applyChatTemplate(messages, { ...options, addGenerationPrompt: false });
  const family = tokenizer.family === undefined ? undefined : familyById(tokenizer.family);
  const prompt = family?.alwaysAppendsGenerationPrompt ? family.generationPrompt : undefined;
  return prompt !== undefined && text.endsWith(prompt)
    ? text.slice(0, text.length - prompt.length)
    : text;
}

/**
 * Tokens for the messages that follow a model turn (tool results, a user reply) plus the next
 * generation prompt: ONLY what goes after the ledger's last token, separator first. Uses
 * strands-sglang v0.4's prefix subtraction over a fake [system, user] conversation, so templates
 * that inject a default system prompt when none is given still yield just the new part.
 * The tokenizer's family (core/families) says what the template does beyond that: a generation
 * prompt it appends whatever `add_generation_prompt` says (Llama-3) is subtracted from the base,
 * its separator is known, and alternating-role templates (Gemma 3) render a user reply after a
 * stand-in assistant turn.
 * Pass parallel tool results in call order (`call_0000` first).
 */
export function toolResultSuffix(
  tokenizer: Tokenizer,
  newMessages: readonly ChatTemplateMessage[],
  options: SuffixOptions = {},
): PromptTokens {
  const text = toolResultSuffixText(tokenizer, newMessages, options);
  return { tokenIds: tokenizer.encode(text), text };
}

/** The text toolResultSuffix encodes, to encode elsewhere (a long result, off the event loop). */
export function toolResultSuffixText(
  tokenizer: Tokenizer,
  newMessages: readonly ChatTemplateMessage[],
  options: SuffixOptions = {},
): string {
  if (newMessages.length === 0) {
    throw new Error("toolResultSuffix: no new messages to render after the model turn");
  }
  const family = tokenizer.family === undefined ? undefined : familyById(tokenizer.family);
  const thinking =
    options.enableThinking === undefined ? {} : { enableThinking: options.enableThinking };
  if (
    family?.rolesAlternate &&
    newMessages[0]?.role === "user" &&
    options.separator === undefined
  ) {
    return afterAssistantSuffix(tokenizer, family, newMessages, thinking);
  }
  const base = renderWithoutGenerationPrompt(tokenizer, FAKE_PREFIX, thinking);
  const full = tokenizer.applyChatTemplate([...FAKE_PREFIX, ...newMessages], {
    addGenerationPrompt: true,
    ...thinking,
  });
  if (!full.startsWith(base)) {
    const at = firstDifference(base, full);
    throw new Error(
      `tokenizer ${tokenizer.id}: the chat template does not render [system, user] as a prefix of ` +
        `[system, user, …new messages] (they differ at character ${at}: ` +
        `${JSON.stringify(base.slice(at, at + 40))} vs ${JSON.stringify(full.slice(at, at + 40))}); ` +
        "it appends text after the last message regardless of add_generation_prompt, so the new " +
        "messages cannot be tokenized incrementally",
    );
  }
  const separator = options.separator ?? family?.separator ?? detectSeparator(tokenizer);
  return separator + full.slice(base.length);
}

import { Template } from "@huggingface/jinja";
import { isRecord } from "../core/isRecord";
import { configTokenContent } from "../core/tokenizer/turnEnds";
import type { ChatTemplateMessage, ChatTemplateOptions } from "../core/tokenizer/types";

/** The token strings HF passes to every chat template (transformers' SPECIAL_TOKEN_ATTRIBUTES). */
const SPECIAL_TOKEN_KEYS = [
  "bos_token",
  "eos_token",
  "unk_token",
  "sep_token",
  "pad_token",
  "cls_token",
  "mask_token",
] as const;

/**
 * The template source: `chat_template` may be a string or a list of `{name, template}`; like HF we use
 * `tool_use` when tools are given and it exists, else `default`.
 */
function pickTemplate(id: string, raw: unknown, hasTools: boolean): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) {
    throw new Error(
      `tokenizer ${id}: tokenizer_config.json chat_template must be a string or a list`,
    );
  }
  const byName = new Map<string, string>();
  raw.forEach((entry: unknown, i) => {
    if (!isRecord(entry) || typeof entry.name !== "string" || typeof entry.template !== "string") {
      throw new Error(`tokenizer ${id}: chat_template[${i}] needs string "name" and "template"`);
    }
    byName.set(entry.name, entry.template);
  });
  const chosen = (hasTools ? byName.get("tool_use") : undefined) ?? byName.get("default");
  if (chosen === undefined) {
    throw new Error(
      `tokenizer ${id}: chat_template has no "default" entry (has ${[...byName.keys()].join(", ")})`,
    );
  }
  return chosen;
}

/** A renderer for one tokenizer's chat template, compiled once per template source. */
export function createChatTemplateRenderer(
  id: string,
  tokenizerConfig: Record<string, unknown>,
  chatTemplateOverride: string | undefined,
) {
  const compiled = new Map<string, Template>();
  const specialTokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const content = configTokenContent(tokenizerConfig[key]);
    if (content) specialTokens[key] = content;
  }

  return (messages: readonly ChatTemplateMessage[], options: ChatTemplateOptions = {}): string => {
    const hasTools = options.tools !== undefined && options.tools.length > 0;
    const source =
      chatTemplateOverride ?? pickTemplate(id, tokenizerConfig.chat_template, hasTools);
    if (source === undefined) {
      throw new Error(
        `tokenizer ${id}: no chat template (neither chat_template in tokenizer_config.json nor chat_template.jinja)`,
      );
    }
    let template = compiled.get(source);
    if (!template) {
      template = new Template(source);
      compiled.set(source, template);
    }
    // Same context HF transformers builds: extra kwargs (enable_thinking) sit beside messages/tools.
    // Omitting enable_thinking leaves it undefined in Jinja, which Qwen3 treats as "thinking on".
    const context: Record<string, unknown> = {
      messages,
      tools: options.tools ?? null,
      documents: null,
      add_generation_prompt: options.addGenerationPrompt ?? false,
      ...specialTokens,
    };
    if (options.enableThinking !== undefined) context.enable_thinking = options.enableThinking;
    try {
      return template.render(context);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`tokenizer ${id}: chat template failed: ${reason}`);
    }
  };
}

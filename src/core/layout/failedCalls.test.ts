import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import type { ToolCall, Trajectory } from "../trajectory/types";
import { failedCallTokens, tokensOfSpan } from "./failedCalls";
import { flattenTrajectory } from "./flatTrajectory";

describe("tokensOfSpan", () => {
  const pieces = ["Hi", " ", "<tool_call>", "\n{", '"a"', "\n", "</tool_call>", "!"];
  const text = pieces.join("");
  const at = (s: string) => text.indexOf(s);

  it.each([
    { why: "the whole markup", span: [at("<tool_call>"), at("!")], out: [2, 7] },
    { why: "a span starting mid-token", span: [at("{"), at("</tool_call>")], out: [3, 6] },
    { why: "one character", span: [at('"a"') + 1, at('"a"') + 2], out: [4, 5] },
    { why: "the first token", span: [0, 1], out: [0, 1] },
  ] as const)("$why", ({ span, out }) => {
    expect(tokensOfSpan(pieces, 0, pieces.length, text, span)).toEqual(out);
  });

  it("works in token-index space, inside a later segment", () => {
    const all = ["#1", "#2", ...pieces];
    expect(tokensOfSpan(all, 2, all.length, text, [at("<tool_call>"), at("!")])).toEqual([4, 9]);
  });

  it.each([
    { why: "placeholders", pieces: pieces.map((_, i) => `#${i}`) },
    { why: "a character split across tokens (display pieces differ)", pieces: ["⋯", "é"] },
    { why: "pieces that stop short of the text", pieces: pieces.slice(0, 3) },
  ])("marks nothing when the pieces do not spell the text: $why", ({ pieces: shown }) => {
    expect(tokensOfSpan(shown, 0, shown.length, text, [0, 3])).toBeUndefined();
  });
});

describe("failedCallTokens", () => {
  const prompt = promptSegment([1, 2]);
  const text = 'ok<tool_call>{"x"</tool_call>';
  const call = (error: string | undefined): ToolCall => ({
    id: "call_0000",
    name: "",
    arguments: {},
    raw: '{"x"',
    span: [2, text.length],
    ...(error === undefined ? {} : { error }),
  });
  const pieces = ["a", "b", "ok", "<tool_call>", '{"x"', "</tool_call>"];
  const marksOf = (t: Trajectory) =>
    failedCallTokens(t, pieces, flattenTrajectory(t).segmentStarts);

  it("marks the broken call's tokens and nothing else", () => {
    const broken = modelSegment([3, 4, 5, 6], 1, { text, toolCalls: [call("invalid JSON")] });
    expect(Array.from(marksOf(trajectory([prompt, broken])) ?? [])).toEqual([0, 0, 0, 1, 1, 1]);
  });

  it("has nothing to mark for calls that parsed, or without the segment's text", () => {
    const parsed = modelSegment([3, 4, 5, 6], 1, { text, toolCalls: [call(undefined)] });
    const noText = modelSegment([3, 4, 5, 6], 1, { toolCalls: [call("invalid JSON")] });
    expect(marksOf(trajectory([prompt, parsed]))).toBeUndefined();
    expect(marksOf(trajectory([prompt, noText]))).toBeUndefined();
  });
});

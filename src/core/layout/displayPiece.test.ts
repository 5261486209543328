import { describe, expect, it } from "vitest";
import { cellsOf, isSpecialPiece, visibleText } from "./displayPiece";

describe("displayPiece", () => {
  it.each([
    ["<|im_end|>", true],
    ["<|eot_id|>", true],
    ["<tool_call>", true],
    ["</think>", true],
    ["<tools>", false],
    [" <|", false],
    ["hello", false],
  ])("isSpecialPiece(%j) = %s", (piece, special) => {
    expect(isSpecialPiece(piece)).toBe(special);
  });

  it.each([
    ["abc", 3],
    ["値", 2],
    ["🙂", 2],
    ["é", 1],
    ["", 0],
  ])("cellsOf(%j) = %i", (piece, cells) => {
    expect(cellsOf(piece, 0, piece.length)).toBe(cells);
  });

  it.each([
    [" a\tb\n", true, "·a→b↵"],
    [" a\tb\n", false, " a b "],
    ["\r\u0000", false, "␍␀"],
  ])("visibleText(%j, %s) = %j", (fragment, show, out) => {
    expect(visibleText(fragment, show)).toBe(out);
    expect(out.length).toBe(fragment.length);
  });
});

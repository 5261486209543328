import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cellsOf,
  invisibleEscape,
  isSpecialPiece,
  revealInvisible,
  visibleText,
} from "./displayPiece";

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

  // visibleText skips building a string for printable ASCII; it must agree with the per-character
  // rules everywhere, including the edges of that fast path (space, tilde, DEL, U+00AD).
  it("maps every string exactly as the per-character rules do", () => {
    const perCharacter = (text: string, show: boolean) =>
      [...text].map((ch) => visibleText(ch, show)).join("");
    const edgy = fc.constantFrom(" ", "~", "!", "\u007f", "\u00ad", "\n", "\t", "\u202e", "a");
    fc.assert(
      fc.property(
        fc.array(fc.oneof(edgy, fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 12 }),
        fc.boolean(),
        (parts, show) => {
          const text = parts.join("");
          expect(visibleText(text, show)).toBe(perCharacter(text, show));
        },
      ),
    );
  });

  // Rollout text is untrusted: bidi controls and invisible characters are shown as escapes, so
  // `exe.txt` hidden behind U+202E reads as what it is and the view's columns still line up.
  it.each([
    ["a\u202Eexe.txt", "a⟨U+202E⟩exe.txt"],
    ["\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"],
    ["zero\u200Bwidth", "zero⟨U+200B⟩width"],
    ["\u200C\u200D\u200E\u200F", "⟨U+200C⟩⟨U+200D⟩⟨U+200E⟩⟨U+200F⟩"],
    ["\uFEFFbom", "⟨U+FEFF⟩bom"],
    ["soft\u00ADhyphen", "soft⟨U+00AD⟩hyphen"],
    ["\u061C\u2060\u2061", "⟨U+061C⟩⟨U+2060⟩⟨U+2061⟩"],
    ["<script>&amp;", "<script>&amp;"],
    ["שלום", "שלום"],
  ])("visibleText(%j) shows hidden characters: %j", (fragment, out) => {
    expect(visibleText(fragment, false)).toBe(out);
    // The layout counts the cells the view draws.
    expect(cellsOf(fragment, 0, fragment.length)).toBe(out.length);
  });

  it.each([
    [0x202e, "⟨U+202E⟩"],
    [0x41, undefined],
    [0x20, undefined],
    [0x5d0, undefined],
  ])("invisibleEscape(%i) = %s", (code, out) => {
    expect(invisibleEscape(code)).toBe(out);
  });

  it("escapes exactly the listed invisible ranges, ends included, across the whole BMP", () => {
    const ranges = [
      [0x00ad, 0x00ad],
      [0x034f, 0x034f],
      [0x061c, 0x061c],
      [0x115f, 0x1160],
      [0x17b4, 0x17b5],
      [0x180e, 0x180e],
      [0x200b, 0x200f],
      [0x202a, 0x202e],
      [0x2060, 0x2064],
      [0x2066, 0x206f],
      [0x3164, 0x3164],
      [0xfeff, 0xfeff],
      [0xffa0, 0xffa0],
      [0xfff9, 0xfffb],
    ] as const;
    const wrong: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const isListed = ranges.some(([lo, hi]) => code >= lo && code <= hi);
      if ((invisibleEscape(code) !== undefined) !== isListed) wrong.push(code);
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ["result \u202Egnp.exe\nnext", "result ⟨U+202E⟩gnp.exe\nnext"],
    ["plain <b>text</b>", "plain <b>text</b>"],
  ])("revealInvisible(%j) = %j", (text, out) => {
    expect(revealInvisible(text)).toBe(out);
  });
});

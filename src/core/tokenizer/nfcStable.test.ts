import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isNfcStable } from "./nfcStable";
import { utf8Encode } from "./utf8";

// Characters NFC leaves alone and characters it composes, reorders or replaces: ASCII, CJK,
// emoji with variation selectors and ZWJ, combining marks of several classes, a singleton
// (U+212B), Hangul syllables and the jamo that compose with them, Kana and its voicing marks.
const PIECES = [
  "a",
  "e",
  "o",
  " ",
  "\n",
  "的",
  "한",
  "か",
  "é",
  "Å",
  "\u0301",
  "\u0308",
  "\u0323",
  "\u031b",
  "\u0345",
  "\u212b",
  "\u0344",
  "\ufe0f",
  "\u200d",
  "😀",
  "👍🏽",
  "❤",
  "\u1100",
  "\u1161",
  "\u11a8",
  "\uac00",
  "\u3099",
  "\u309a",
  "\u0915\u093c",
];

describe("isNfcStable", () => {
  it("says what normalizing the whole text says, on any mix of these characters", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }), (pieces) => {
        const text = pieces.join("");
        const bytes = utf8Encode(`\u0301x${text}y\u0301`);
        const from = utf8Encode("\u0301x").length;
        const to = bytes.length - utf8Encode("y\u0301").length;
        // Only [from, to) counts: the marks outside it would compose with `x` and `y`.
        const inner = utf8Encode(`x${text}y`);
        expect(isNfcStable(bytes, from, to)).toBe(text.normalize("NFC") === text);
        expect(isNfcStable(inner, 0, inner.length)).toBe(
          `x${text}y`.normalize("NFC") === `x${text}y`,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("finds a change far from the start of a long run, and none in a long stable run", () => {
    const stable = `${"plain text 的 ".repeat(500)}👍🏽 ❤\ufe0f e\u0301\u0301`;
    expect(stable.normalize("NFC") === stable).toBe(false);
    const composed = stable.normalize("NFC");
    const bytes = utf8Encode(composed);
    expect(isNfcStable(bytes, 0, bytes.length)).toBe(true);
    const changed = utf8Encode(`${composed}a\u0308`);
    expect(isNfcStable(changed, 0, changed.length)).toBe(false);
    // Reordering only: two marks of different classes in the wrong order.
    const reordered = utf8Encode(`${composed}q\u0301\u0323`);
    expect(isNfcStable(reordered, 0, reordered.length)).toBe(false);
  });

  it("declines ill-formed bytes", () => {
    expect(isNfcStable(Uint8Array.from([0x61, 0xc3]), 0, 2)).toBe(false);
  });
});

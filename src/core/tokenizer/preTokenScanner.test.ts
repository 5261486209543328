import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PreTokenScanner, SCAN_FAILED } from "./preTokenScanner";

// The Qwen2/3 and Llama-3 split regexes written for JS: the inline (?i:...) expanded, and `\s` as
// White_Space (what tokenizers and @huggingface/tokenizers use; JS `\s` differs on U+FEFF/U+0085).
const S = "\\p{White_Space}";
const NS = "\\P{White_Space}";
function splitRegex(digits: string): RegExp {
  return new RegExp(
    `'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}${digits}| ?[^${S}\\p{L}\\p{N}]+[\\r\\n]*|[${S}]*[\\r\\n]+|[${S}]+(?![${NS}])|[${S}]+`,
    "gu",
  );
}

/** Pre-token end offsets (bytes) the regex gives. */
function regexEnds(text: string, re: RegExp): number[] {
  const ends: number[] = [];
  const encoder = new TextEncoder();
  for (const m of text.matchAll(re)) {
    ends.push(encoder.encode(text.slice(0, (m.index ?? 0) + m[0].length)).length);
  }
  return ends;
}

/** Pre-token end offsets the scanner gives, or undefined when it declines. */
function scannerEnds(text: string, digitRun: number): number[] | undefined {
  const bytes = new TextEncoder().encode(text);
  const scanner = new PreTokenScanner(bytes, bytes.length, digitRun);
  const ends: number[] = [];
  for (let p = 0; p < bytes.length; ) {
    const q = scanner.next(p);
    if (q === SCAN_FAILED) return undefined;
    ends.push(q);
    p = q;
  }
  return ends;
}

const ALPHABET = [
  "a",
  "Z",
  "s",
  "t",
  "L",
  "e",
  "é",
  "東",
  "1",
  "٣",
  "²",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\u00a0",
  "\u0085",
  "'",
  ".",
  '"',
  "}}",
  "🙂",
  "ſ",
  "-",
];

describe("PreTokenScanner", () => {
  it.each([
    ["Hello world.\n", 1, ["Hello", " world", ".\n"]],
    ["x  = 12345;", 1, ["x", " ", " =", " ", "1", "2", "3", "4", "5", ";"]],
    ["x  = 12345;", 3, ["x", " ", " =", " ", "123", "45", ";"]],
    ["don't  \n\n  go", 1, ["don", "'t", "  \n\n", " ", " go"]],
    [')"}}\n', 1, [')"}}\n']],
  ])("splits %j (digit run %i)", (text, digitRun, words) => {
    const ends = scannerEnds(text, digitRun) ?? [];
    const encoder = new TextEncoder();
    const expected: number[] = [];
    let acc = "";
    for (const w of words) {
      acc += w;
      expected.push(encoder.encode(acc).length);
    }
    expect(ends).toEqual(expected);
  });

  it.each([
    [1, ""],
    [3, "{1,3}"],
  ])("matches the split regex on random text (digit run %i)", (digitRun, digits) => {
    const re = splitRegex(digits);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const ends = scannerEnds(text, digitRun);
        // The scanner declines only around U+017F after an apostrophe (it case-folds to `s`).
        if (ends === undefined) expect(text).toContain("'ſ");
        else expect(ends).toEqual(regexEnds(text, re));
      }),
      { numRuns: 3000 },
    );
  });

  it("declines ill-formed UTF-8", () => {
    const bytes = Uint8Array.of(0x61, 0xf0, 0x9f);
    const scanner = new PreTokenScanner(bytes, bytes.length, 1);
    expect(scanner.next(0)).toBe(1);
    expect(scanner.next(1)).toBe(SCAN_FAILED);
  });
});

import { describe, expect, it } from "vitest";
import { type VocabByteScheme, vocabPieceBytes } from "./vocabBytes";

describe("vocabPieceBytes", () => {
  it.each<[string, string, VocabByteScheme, number[]]>([
    ["byte-level space", "\u0120the", "byte-level", [0x20, 0x74, 0x68, 0x65]],
    ["byte-level newline", "\u010a", "byte-level", [0x0a]],
    ["byte-level half of 😀", "\u00f0\u0141\u013a", "byte-level", [0xf0, 0x9f, 0x98]],
    ["byte-level é as two bytes", "\u00c3\u00a9", "byte-level", [0xc3, 0xa9]],
    ["byte-level soft hyphen byte (shifted)", "\u0143", "byte-level", [0xad]],
    ["sentencepiece word", "\u2581hi", "sentencepiece", [0x20, 0x68, 0x69]],
    ["sentencepiece byte piece", "<0xF0>", "sentencepiece", [0xf0]],
    ["sentencepiece lower-case hex", "<0x0a>", "sentencepiece", [0x0a]],
    [
      "sentencepiece text that only looks like a byte",
      "<0xF0>x",
      "sentencepiece",
      [...Buffer.from("<0xF0>x")],
    ],
    ["plain keeps ▁", "\u2581a", "plain", [0xe2, 0x96, 0x81, 0x61]],
  ])("%s", (_name, piece, scheme, bytes) => {
    expect([...vocabPieceBytes(piece, scheme)]).toEqual(bytes);
  });

  it("maps all 256 byte-level chars to 256 distinct bytes", () => {
    const chars: string[] = [];
    for (let cp = 0; cp < 324; cp++) {
      const c = String.fromCodePoint(cp);
      const visible =
        (cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || (cp >= 174 && cp <= 255);
      if (visible || cp >= 256) chars.push(c);
    }
    const bytes = new Set(chars.map((c) => vocabPieceBytes(c, "byte-level")[0]));
    expect(bytes.size).toBe(256);
  });
});

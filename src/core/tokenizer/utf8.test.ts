import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8CharLength, utf8CodePoint, utf8Encode } from "./utf8";

/** Decodes with our primitives, one U+FFFD per maximal ill-formed subpart, like TextDecoder. */
function decodeWithPrimitives(bytes: Uint8Array): string {
  let text = "";
  let pos = 0;
  while (pos < bytes.length) {
    const length = utf8CharLength(bytes, pos);
    if (length > 0) text += String.fromCodePoint(utf8CodePoint(bytes, pos, length));
    else text += "\uFFFD";
    pos += Math.abs(length);
  }
  return text;
}

describe("utf8", () => {
  it.each([
    ["ascii", [0x41], 1],
    ["two bytes é", [0xc3, 0xa9], 2],
    ["three bytes 日", [0xe6, 0x97, 0xa5], 3],
    ["four bytes 😀", [0xf0, 0x9f, 0x98, 0x80], 4],
    ["lone continuation", [0x80], -1],
    ["overlong C0", [0xc0, 0x80], -1],
    ["E0 needs A0..BF", [0xe0, 0x80, 0x80], -1],
    ["surrogate ED A0", [0xed, 0xa0, 0x80], -1],
    ["cut four-byte sequence", [0xf0, 0x9f, 0x98], -3],
    ["four-byte lead then ascii", [0xf0, 0x9f, 0x41], -2],
    ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80], -1],
  ])("%s", (_name, bytes, expected) => {
    expect(utf8CharLength(Uint8Array.from(bytes), 0)).toBe(expected);
  });

  it("agrees with TextDecoder on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        expect(decodeWithPrimitives(bytes)).toBe(new TextDecoder().decode(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("encodes like TextEncoder, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 16 }), (text) => {
        expect([...utf8Encode(text)]).toEqual([...new TextEncoder().encode(text)]);
      }),
      { numRuns: 300 },
    );
    expect([...utf8Encode("a\uD800b")]).toEqual([0x61, 0xef, 0xbf, 0xbd, 0x62]);
  });
});

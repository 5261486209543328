import { describe, expect, it } from "vitest";
import { createLineIndex, finishLineIndex, lineRange, scanChunk } from "./lineIndex";

const enc = new TextEncoder();

function indexIn(text: string, chunkSize: number, finish = true) {
  const bytes = enc.encode(text);
  const index = createLineIndex(1);
  for (let at = 0; at < bytes.length; at += chunkSize) {
    scanChunk(index, bytes.subarray(at, at + chunkSize));
  }
  if (finish) finishLineIndex(index);
  const dec = new TextDecoder();
  const lines = Array.from({ length: index.count }, (_, row) => {
    const [start, end] = lineRange(index, row);
    return dec.decode(bytes.subarray(start, end));
  });
  return { index, lines };
}

describe("line index", () => {
  const cases: { name: string; text: string; lines: string[] }[] = [
    { name: "empty file", text: "", lines: [] },
    { name: "trailing newline", text: "a\nbb\n", lines: ["a", "bb"] },
    { name: "no trailing newline", text: "a\nbb", lines: ["a", "bb"] },
    { name: "blank lines kept", text: "\n\nx\n", lines: ["", "", "x"] },
    { name: "CRLF keeps the CR", text: "a\r\nb\r\n", lines: ["a\r", "b\r"] },
    { name: "multi-byte text", text: "é€\n😀x\n", lines: ["é€", "😀x"] },
  ];
  for (const c of cases) {
    for (const chunkSize of [1, 2, 3, 1024]) {
      it(`${c.name}, chunks of ${chunkSize} bytes`, () => {
        expect(indexIn(c.text, chunkSize).lines).toEqual(c.lines);
      });
    }
  }

  it("grows past its initial capacity and keeps byte offsets", () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const { index, lines } = indexIn(`${text}\n`, 777);
    expect(index.count).toBe(5000);
    expect(lines[4321]).toBe("line 4321");
    expect(index.starts[1]).toBe(7);
  });

  it("an unfinished index leaves the open line pending until its newline arrives", () => {
    const index = createLineIndex();
    expect(scanChunk(index, enc.encode("ab\ncd"))).toBe(1);
    expect(index.pendingStart).toBe(3);
    expect(scanChunk(index, enc.encode("e\n"))).toBe(1);
    expect(lineRange(index, 1)).toEqual([3, 6]);
  });

  it("refuses rows that are not indexed, naming the line", () => {
    const { index } = indexIn("a\n", 4);
    expect(() => lineRange(index, 1)).toThrow(/line 2 is not indexed \(1 lines/);
    expect(() => lineRange(index, -1)).toThrow(RangeError);
  });
});

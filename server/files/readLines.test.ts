import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDocumentHeadProblem } from "../../src/core/files/recordIndexer";
import { byteRangeOfShard } from "../../src/core/files/shard";
import { SNIFF_BYTES } from "../../src/core/files/sniffFile";
import { type NumberedLine, readLines } from "./readLines";

const dir = mkdtempSync(join(tmpdir(), "readlines-"));
let n = 0;
function fileOf(content: string | Buffer): string {
  n += 1;
  const path = join(dir, `f${n}.txt`);
  writeFileSync(path, content);
  return path;
}

async function collect(path: string, range?: { start: number; end: number }) {
  const out: NumberedLine[] = [];
  for await (const line of readLines(path, range)) out.push(line);
  return out;
}

/** The reference: split on `\n`, drop one trailing `\r`, no line after a final `\n`. */
function reference(text: string): NumberedLine[] {
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts.map((t, k) => ({ lineNo: k + 1, text: t.endsWith("\r") ? t.slice(0, -1) : t }));
}

describe("readLines", () => {
  it("splits on LF, drops CR before it, keeps blank lines and a last unterminated line", async () => {
    const path = fileOf('{"a":1}\r\n\n{"b":"é"}\n  \nlast');
    expect(await collect(path)).toEqual([
      { lineNo: 1, text: '{"a":1}' },
      { lineNo: 2, text: "" },
      { lineNo: 3, text: '{"b":"é"}' },
      { lineNo: 4, text: "  " },
      { lineNo: 5, text: "last" },
    ]);
    expect(await collect(fileOf(""))).toEqual([]);
    expect(await collect(fileOf("\n"))).toEqual([{ lineNo: 1, text: "" }]);
  });

  it("joins a line longer than a read chunk, multi-byte characters cut at the seam included", async () => {
    const long = `${"x".repeat((1 << 20) - 1)}é${"y".repeat(3 << 20)}`;
    const path = fileOf(`a\n${long}\nb\n`);
    const lines = await collect(path);
    expect(lines.map((l) => l.text.length)).toEqual([1, long.length, 1]);
    expect(lines[1]?.text).toBe(long);
  });

  it("with a range, yields the lines starting inside it, numbered as in the whole file", async () => {
    const text = "aa\nbbb\n\ncc\nd";
    // line starts: 0 (aa), 3 (bbb), 7 (""), 8 (cc), 11 (d)
    const path = fileOf(text);
    expect(await collect(path, { start: 0, end: 3 })).toEqual([{ lineNo: 1, text: "aa" }]);
    expect(await collect(path, { start: 1, end: 4 })).toEqual([{ lineNo: 2, text: "bbb" }]);
    expect(await collect(path, { start: 4, end: 8 })).toEqual([{ lineNo: 3, text: "" }]);
    expect(await collect(path, { start: 8, end: 13 })).toEqual([
      { lineNo: 4, text: "cc" },
      { lineNo: 5, text: "d" },
    ]);
    expect(await collect(path, { start: 4, end: 7 })).toEqual([]);
    expect(await collect(path, { start: 5, end: 5 })).toEqual([]);
  });

  it("N ranges of a file read every line exactly once, with its real number (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[a-zé\r{}":, ]{0,12}$/), { maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        async (lines, trailing, count) => {
          const text = lines.join("\n") + (trailing ? "\n" : "");
          const path = fileOf(text);
          const size = Buffer.byteLength(text);
          const head = new TextDecoder().decode(Buffer.from(text).subarray(0, SNIFF_BYTES));
          if (jsonDocumentHeadProblem(head) !== undefined) {
            // `{` alone on the first line, or a `[` first: one JSON document, refused whole.
            await expect(collect(path)).rejects.toThrow(/one JSON document, not JSON lines/);
            return;
          }
          const all: NumberedLine[] = [];
          for (let index = 0; index < count; index++) {
            all.push(...(await collect(path, byteRangeOfShard(size, { index, count }))));
          }
          expect(all).toEqual(reference(text));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("rejects when the file cannot be opened", async () => {
    await expect(collect(join(dir, "missing.jsonl"))).rejects.toThrow(/ENOENT/);
  });
});

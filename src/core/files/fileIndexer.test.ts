import { describe, expect, it } from "vitest";
import { calculatorEpisode } from "../../test/trajectoryBuilders";
import { stringifyJsonLine } from "../formats/jsonLine";
import { writeRolloutLens } from "../formats/rolloutLens";
import { writeSlime } from "../formats/slime";
import { createFileIndex, finishFileIndex, indexChunk } from "./fileIndexer";

const enc = new TextEncoder();
const dec = new TextDecoder();
const decode = (b: Uint8Array) => dec.decode(b);

function ours(id: string, reward: number): string {
  return stringifyJsonLine(writeRolloutLens(calculatorEpisode({ id, reward })));
}

function indexText(text: string, chunkSize: number) {
  const bytes = enc.encode(text);
  const index = createFileIndex("run.jsonl");
  let rowsSeen = 0;
  for (let at = 0; at < bytes.length; at += chunkSize) {
    rowsSeen += indexChunk(index, bytes.subarray(at, at + chunkSize), decode).rows.length;
  }
  rowsSeen += finishFileIndex(index, decode).rows.length;
  return { index, rowsSeen };
}

describe("file indexer", () => {
  const file = [ours("a", 1), "{not json", "", ours("b", 0), '{"foo": 1}', ours("c", 0.5)].join(
    "\n",
  );

  for (const chunkSize of [7, 64, 100_000]) {
    it(`summarizes good lines and lists bad ones by number (chunks of ${chunkSize})`, () => {
      const { index, rowsSeen } = indexText(file, chunkSize);
      expect(index.lines.count).toBe(6);
      expect(index.format).toBe("rollout-lens/v1");
      expect(rowsSeen).toBe(3);
      expect(index.rows.map((r) => [r.index, r.line, r.id, r.reward])).toEqual([
        [0, 1, "a", 1],
        [1, 4, "b", 0],
        [2, 6, "c", 0.5],
      ]);
      expect(index.errors.map((e) => e.line)).toEqual([2, 5]);
      expect(index.errors[0]?.message).toMatch(/invalid JSON/);
      expect(index.errors[1]?.message).toMatch(/rollout-lens\/v1/);
    });
  }

  it("the first good line fixes the file format; a line of another format is an error", () => {
    const slime = stringifyJsonLine(writeSlime(calculatorEpisode()));
    const { index } = indexText(`${ours("a", 1)}\n${slime}\n`, 50);
    expect(index.rows).toHaveLength(1);
    expect(index.errors).toEqual([
      expect.objectContaining({
        line: 2,
        message: expect.stringMatching(/expected a rollout-lens/),
      }),
    ]);
  });

  it("keeps only the open line's bytes between chunks", () => {
    const bytes = enc.encode(`${ours("a", 1)}\n${ours("b", 1)}`);
    const index = createFileIndex();
    indexChunk(index, bytes.subarray(0, bytes.length - 10), decode);
    expect(index.rows).toHaveLength(1);
    expect(index.carry.length).toBe(bytes.length - 10 - (index.lines.pendingStart ?? 0));
    indexChunk(index, bytes.subarray(bytes.length - 10), decode);
    expect(finishFileIndex(index, decode).rows.map((r) => r.id)).toEqual(["b"]);
  });
});

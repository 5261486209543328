import { describe, expect, it } from "vitest";
import { createFakeTokenizer } from "../../test/fakeTokenizer";
import { scanDriftLine, startFileDriftScan } from "../drift/fileDriftScan";
import type { DriftResult } from "../drift/types";
import { parseMapSpec } from "../formats/columnMapping";
import { stringifyJsonLine } from "../formats/jsonLine";
import { createFileMismatchScan, scanMismatchLine } from "../mismatch/fileMismatch";
import { createFileIndex, finishFileIndex, indexChunk } from "./fileIndexer";
import { jsonLinesNeedingMapping } from "./recordIndexer";

// A JSONL dump no known producer wrote, read through a column mapping: the file index, the drift
// scan and the mismatch scan read its lines alike, so their rows line up.

const parsed = parseMapSpec("prompt=prompt_ids,response=completion_ids,logprobs=lp,reward=score");
if (!parsed.ok) throw new Error(parsed.message);
const mapping = parsed.mapping;

const row = (k: number, over: Record<string, unknown> = {}) => ({
  prompt_ids: [1, 2, 3],
  completion_ids: [4 + k, 5],
  lp: [-0.5, -0.25],
  score: k,
  // A second lane kept verbatim (unmapped columns stay), for the mismatch scan.
  logprob_lanes: { trainer: [null, null, null, -0.4, -0.3] },
  ...over,
});
const LINES = [
  stringifyJsonLine(row(0)),
  "",
  stringifyJsonLine(row(1, { completion_ids: [4, "x"] })),
  "{not json",
  stringifyJsonLine(row(2)),
];
const TEXT = `${LINES.join("\n")}\n`;
const encoder = new TextEncoder();
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("jsonLinesNeedingMapping", () => {
  it("names the first record's keys when no format reads it", () => {
    expect(jsonLinesNeedingMapping(TEXT, true)).toEqual(Object.keys(row(0)));
    // Blank and non-JSON lines before it are passed over.
    expect(jsonLinesNeedingMapping(`\n{oops\n${LINES[0]}\n`, true)).toEqual(Object.keys(row(0)));
  });

  it("undefined for a known format, an empty head, or a first line cut by the chunk", () => {
    const slime = '{"tokens":[1,2],"response_length":1,"loss_mask":[1],"rollout_log_probs":null}';
    expect(jsonLinesNeedingMapping(`${slime}\n${LINES[0]}\n`, true)).toBeUndefined();
    expect(jsonLinesNeedingMapping("", true)).toBeUndefined();
    expect(jsonLinesNeedingMapping(LINES[0]?.slice(0, 20) ?? "", false)).toBeUndefined();
    // The same line as the whole file (no line break after it): looked at.
    expect(jsonLinesNeedingMapping(LINES[0] ?? "", true)).toEqual(Object.keys(row(0)));
  });
});

describe("a JSONL file indexed through a column mapping", () => {
  it("rows from every good line, the bad one named by line and mapped column", () => {
    const index = createFileIndex("dump.jsonl", mapping);
    indexChunk(index, encoder.encode(TEXT), decode);
    finishFileIndex(index, decode);
    expect(index.format).toBe("slime");
    expect(index.rows.map((r) => [r.line, r.reward])).toEqual([
      [1, 0],
      [5, 2],
    ]);
    expect(index.errors.map((e) => [e.line, e.field])).toEqual([
      [3, "completion_ids[1]"],
      [4, undefined],
    ]);
    // Without the mapping every record line is an error suggesting the flag.
    const plain = createFileIndex("dump.jsonl");
    indexChunk(plain, encoder.encode(TEXT), decode);
    expect(plain.rows).toEqual([]);
    expect(plain.errors[0]?.message).toContain(
      "read it with --map prompt=prompt_ids,response=completion_ids",
    );
  });

  it("the drift scan reads through the scan's mapping, its rows the table's", () => {
    const checked: number[][] = [];
    const check = (t: { segments: readonly { tokenIds: readonly number[] }[] }) => {
      checked.push(t.segments.flatMap((s) => [...s.tokenIds]));
      const result: DriftResult = {
        mode: "roundtrip",
        lenTito: 0,
        lenRetok: 0,
        textEqual: true,
        firstDivergenceIndex: undefined,
        regions: [],
        trainableTokensAffected: 0,
      };
      return result;
    };
    const { state } = startFileDriftScan(createFakeTokenizer(), "roundtrip", undefined, mapping);
    LINES.forEach((text, k) => {
      scanDriftLine(state, text, k + 1, check, "dump.jsonl");
    });
    expect(checked).toEqual([
      [1, 2, 3, 4, 5],
      [1, 2, 3, 6, 5],
    ]);
    expect(state.rows).toHaveLength(2);
    expect(state.badLines).toBe(2);
  });

  it("the mismatch scan reads as the index does and charts as scanMismatchLine", () => {
    const mapped = createFileMismatchScan();
    LINES.forEach((text, k) => {
      scanMismatchLine(mapped, text, k + 1, 0, {}, "dump.jsonl", mapping);
    });
    expect(mapped.badLines).toBe(2);
    expect(mapped.rows.map((r) => r?.compared)).toEqual([2, 2]);
    // The same records written as slime samples, scanned the unmapped way: the same rows.
    const slime = createFileMismatchScan();
    for (const [k, lineNo] of [
      [0, 1],
      [2, 5],
    ] as const) {
      const r = row(k);
      const sample = {
        tokens: [...r.prompt_ids, ...r.completion_ids],
        response_length: 2,
        loss_mask: null,
        rollout_log_probs: r.lp,
        reward: k,
        logprob_lanes: r.logprob_lanes,
      };
      scanMismatchLine(slime, JSON.stringify(sample), lineNo, 0, {});
    }
    expect(mapped.rows).toEqual(slime.rows);
    expect(mapped.charts.compared).toBe(4);
    expect(mapped.charts).toEqual(slime.charts);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { huge } from "../../test/demoTrajectory";
import { referenceLayout } from "../../test/referenceTokenLayout";
import { cellsOf, unitCells } from "./displayPiece";
import { flattenTrajectory } from "./flatTrajectory";
import {
  type LayoutInput,
  layoutTokens,
  RowKind,
  rowOfToken,
  type TokenLayout,
  tokenAtCell,
  tokenRangeOfRow,
} from "./tokenRows";

/** Renders token rows as `piece|piece` lines, header rows as `#s`, others by kind. */
function render(layout: TokenLayout, pieces: readonly string[]): string[] {
  const lines: string[] = [];
  for (let r = 0; r < layout.rowCount; r++) {
    const kind = layout.rowKind[r];
    if (kind === RowKind.header) lines.push(`#${layout.rowSegment[r]}`);
    else if (kind === RowKind.toolCall) lines.push(`call ${layout.rowItem[r]}`);
    else if (kind === RowKind.cutoff) lines.push("cut");
    else {
      const parts: string[] = [];
      for (let f = layout.rowFragStart[r] ?? 0; f < (layout.rowFragStart[r + 1] ?? 0); f++) {
        const piece = pieces[layout.fragToken[f] ?? 0] ?? "";
        parts.push(piece.slice(layout.fragStart[f], layout.fragEnd[f]));
      }
      lines.push(parts.join("|"));
    }
  }
  return lines;
}

function starts(...lengths: number[]): Int32Array {
  const out = new Int32Array(lengths.length + 1);
  lengths.forEach((n, i) => {
    out[i + 1] = (out[i] ?? 0) + n;
  });
  return out;
}

const cases: {
  name: string;
  pieces: string[];
  segments: number[];
  columns: number;
  calls?: number[];
  cut?: boolean[];
  rows: string[];
}[] = [
  {
    name: "flows tokens on one row",
    pieces: ["ab", "c", "d"],
    segments: [3],
    columns: 10,
    rows: ["#0", "ab|c|d"],
  },
  {
    name: "wraps before a token that does not fit",
    pieces: ["abc", "def", "gh"],
    segments: [3],
    columns: 7,
    rows: ["#0", "abc|def", "gh"],
  },
  {
    name: "a token longer than the row fills it, then wraps",
    pieces: ["x", "abcdefgh"],
    segments: [2],
    columns: 3,
    rows: ["#0", "x|ab", "cde", "fgh"],
  },
  {
    name: "newline ends the row (glyph hangs)",
    pieces: ["abc", "\n", "d"],
    segments: [3],
    columns: 3,
    rows: ["#0", "abc|\n", "d"],
  },
  {
    name: "newline inside a piece splits it",
    pieces: ["a", ".\n  ", "b"],
    segments: [3],
    columns: 10,
    rows: ["#0", "a|.\n", "  |b"],
  },
  {
    name: "double newline leaves a blank row",
    pieces: ["a", "\n\n", "b"],
    segments: [3],
    columns: 10,
    rows: ["#0", "a|\n", "\n", "b"],
  },
  {
    name: "segments start new rows with headers",
    pieces: ["a", "b", "c"],
    segments: [1, 2],
    columns: 10,
    rows: ["#0", "a", "#1", "b|c"],
  },
  {
    name: "empty segment has only its header",
    pieces: ["a"],
    segments: [0, 1],
    columns: 10,
    rows: ["#0", "#1", "a"],
  },
  {
    name: "tool calls and cutoff follow the tokens",
    pieces: ["a", "b"],
    segments: [1, 1],
    columns: 10,
    calls: [0, 2],
    cut: [false, true],
    rows: ["#0", "a", "#1", "b", "call 0", "call 1", "cut"],
  },
  {
    name: "empty piece takes one cell",
    pieces: ["ab", "", "c"],
    segments: [3],
    columns: 3,
    rows: ["#0", "ab|", "c"],
  },
  {
    name: "wide characters take two cells",
    pieces: ["値値", "a"],
    segments: [2],
    columns: 4,
    rows: ["#0", "値値", "a"],
  },
  {
    name: "never splits a surrogate pair",
    pieces: ["a🙂🙂"],
    segments: [1],
    columns: 4,
    rows: ["#0", "a🙂", "🙂"],
  },
];

const PIECES = [
  "",
  "a",
  "ab",
  " the",
  "\n",
  ".\n  ",
  "\n\n",
  "漢字",
  "🙂",
  "a🙂b",
  "abcdefghijklmnop",
  "<|im_end|>",
  "x\ny",
];

describe("layoutTokens", () => {
  it("breaks rows exactly like the reference layout", () => {
    const input = fc.record({
      pieces: fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }),
      cuts: fc.array(fc.nat(60), { maxLength: 4 }),
      columns: fc.integer({ min: 1, max: 14 }),
      calls: fc.nat(2),
    });
    fc.assert(
      fc.property(input, ({ pieces, cuts, columns, calls }) => {
        const bounds = [...new Set([0, ...cuts.map((c) => Math.min(c, pieces.length))])].sort(
          (a, b) => a - b,
        );
        const segmentStarts = Int32Array.from([...bounds, pieces.length]);
        const segmentCount = segmentStarts.length - 1;
        const layoutInput: LayoutInput = {
          pieces,
          segmentStarts,
          toolCallCounts: Array.from({ length: segmentCount }, (_, s) => (s === 0 ? calls : 0)),
          cutSegments: Array.from({ length: segmentCount }, (_, s) => s === segmentCount - 1),
          columns,
        };
        expect(layoutTokens(layoutInput)).toEqual(referenceLayout(layoutInput));
      }),
      { numRuns: 300 },
    );
  });

  // The wrapping rules themselves, checked on any layout (not a second copy of the loop).
  it("keeps the wrapping rules: rows fit, pieces whole and in order, breaks only when needed", () => {
    const input = fc.record({
      pieces: fc.array(fc.constantFrom(...PIECES, "漢", "\t", "ab\ncd\n"), { maxLength: 60 }),
      cuts: fc.array(fc.nat(60), { maxLength: 4 }),
      columns: fc.integer({ min: 1, max: 14 }),
      calls: fc.nat(2),
    });
    fc.assert(
      fc.property(input, ({ pieces, cuts, columns, calls }) => {
        const bounds = [...new Set([0, ...cuts.map((c) => Math.min(c, pieces.length))])].sort(
          (a, b) => a - b,
        );
        const segmentStarts = Int32Array.from([...bounds, pieces.length]);
        const segmentCount = segmentStarts.length - 1;
        const cutSegments = Array.from({ length: segmentCount }, (_, s) => s % 2 === 1);
        const toolCallCounts = Array.from({ length: segmentCount }, (_, s) =>
          s === 0 ? calls : 0,
        );
        const layout = layoutTokens({
          pieces,
          segmentStarts,
          toolCallCounts,
          cutSegments,
          columns,
        });
        checkWrappingRules(layout, { pieces, segmentStarts, toolCallCounts, cutSegments, columns });
      }),
      { numRuns: 300 },
    );
  });

  it.each(cases)("$name", ({ pieces, segments, columns, calls, cut, rows }) => {
    const layout = layoutTokens({
      pieces,
      segmentStarts: starts(...segments),
      toolCallCounts: calls ?? segments.map(() => 0),
      cutSegments: cut ?? segments.map(() => false),
      columns,
    });
    expect(render(layout, pieces)).toEqual(rows);
  });

  it("rejects bad input with a message naming it", () => {
    const base = {
      pieces: ["a"],
      segmentStarts: starts(1),
      toolCallCounts: [0],
      cutSegments: [false],
    };
    expect(() => layoutTokens({ ...base, columns: 0 })).toThrow(
      /columns must be a positive integer/,
    );
    expect(() => layoutTokens({ ...base, pieces: [], columns: 5 })).toThrow(
      /0 pieces for 1 tokens/,
    );
  });

  it("hit-tests tokens, rows and cells", () => {
    const pieces = ["ab", "cd", "e", "fghij"];
    const layout = layoutTokens({
      pieces,
      segmentStarts: starts(4),
      toolCallCounts: [0],
      cutSegments: [false],
      columns: 5,
    });
    expect(render(layout, pieces)).toEqual(["#0", "ab|cd|e", "fghij"]);
    expect([0, 1, 2, 3].map((t) => rowOfToken(layout, t))).toEqual([1, 1, 1, 2]);
    expect(tokenRangeOfRow(layout, 0)).toBeUndefined();
    expect(tokenRangeOfRow(layout, 1)).toEqual([0, 2]);
    expect([0, 1, 2, 3, 4, 5].map((c) => tokenAtCell(layout, pieces, 1, c))).toEqual([
      0,
      0,
      1,
      1,
      2,
      undefined,
    ]);
    expect(() => rowOfToken(layout, 9)).toThrow(/token 9 is outside/);
  });

  it("lays out 131,072 tokens with consistent rows", () => {
    const { trajectory, pieces } = huge();
    const flat = flattenTrajectory(trajectory);
    expect(flat.tokenCount).toBe(131_072);
    const columns = 100;
    const layout = layoutTokens({
      pieces,
      segmentStarts: flat.segmentStarts,
      toolCallCounts: trajectory.segments.map(() => 0),
      cutSegments: trajectory.segments.map((s) => s.finishReason?.type === "length"),
      columns,
    });
    const headers = layout.rowKind.filter((k) => k === RowKind.header).length;
    expect(headers).toBe(trajectory.segments.length);
    expect(layout.rowKind.filter((k) => k === RowKind.cutoff).length).toBe(1);
    // Every token appears, in order, and fragments of one token are contiguous and cover its piece.
    // Plain checks in the hot loop: one expect() per fragment would dominate the run time.
    let expected = 0;
    let covered = 0;
    for (let f = 0; f < layout.fragToken.length; f++) {
      const token = layout.fragToken[f] ?? -1;
      if (token !== expected) {
        const previous = (pieces[expected] ?? "").length;
        if (covered !== previous)
          throw new Error(`token ${expected}: covered ${covered} of ${previous}`);
        expected++;
        covered = 0;
        if (token !== expected)
          throw new Error(`fragment ${f}: token ${token}, expected ${expected}`);
      }
      if (layout.fragStart[f] !== covered)
        throw new Error(`fragment ${f} starts at ${layout.fragStart[f]}`);
      covered = layout.fragEnd[f] ?? 0;
    }
    expect(expected).toBe(131_071);
    // No row is wider than the columns (plus one hanging newline cell); rows only grow down.
    for (let r = 0; r < layout.rowCount; r++) {
      const from = layout.rowFragStart[r] ?? 0;
      const to = layout.rowFragStart[r + 1] ?? 0;
      if (to < from) throw new Error(`row ${r} has negative fragment range`);
      if (to === from) continue;
      const lastFrag = to - 1;
      const piece = pieces[layout.fragToken[lastFrag] ?? 0] ?? "";
      const end =
        (layout.fragColumn[lastFrag] ?? 0) +
        [...piece.slice(layout.fragStart[lastFrag], layout.fragEnd[lastFrag])].length;
      if (end > columns + 1) throw new Error(`row ${r} ends at cell ${end}`);
    }
    for (let t = 1; t < flat.tokenCount; t += 997) {
      expect(rowOfToken(layout, t)).toBeGreaterThanOrEqual(rowOfToken(layout, t - 1));
    }
    expect(layout.rowCount).toBeGreaterThan(131_072 / columns);
    expect(layout.rowCount).toBeLessThan(131_072);
  });
});

/** Cells a fragment takes: its text, plus one for a trailing newline glyph; an empty piece, one. */
function fragmentCells(layout: TokenLayout, pieces: readonly string[], f: number): number {
  const piece = pieces[layout.fragToken[f] ?? 0] ?? "";
  const start = layout.fragStart[f] ?? 0;
  const end = layout.fragEnd[f] ?? 0;
  if (piece.length === 0) return 1;
  const endsLine = end > start && piece[end - 1] === "\n";
  return cellsOf(piece, start, endsLine ? end - 1 : end) + (endsLine ? 1 : 0);
}

/** The rules any layout keeps, whatever the loop that built it. */
function checkWrappingRules(layout: TokenLayout, input: LayoutInput): void {
  const { pieces, columns } = input;
  const text = pieces.map(() => "");
  const expectedKinds: number[] = [];
  for (let s = 0; s + 1 < input.segmentStarts.length; s++) {
    expectedKinds.push(RowKind.header);
    while (layout.rowSegment[expectedKinds.length] === s) {
      if (layout.rowKind[expectedKinds.length] !== RowKind.tokens) break;
      expectedKinds.push(RowKind.tokens);
    }
    for (let c = 0; c < (input.toolCallCounts[s] ?? 0); c++) expectedKinds.push(RowKind.toolCall);
    if (input.cutSegments[s]) expectedKinds.push(RowKind.cutoff);
  }
  // Rows per segment: a header, its token rows, one card per tool call, the cutoff mark.
  expect(Array.from(layout.rowKind)).toEqual(expectedKinds);
  let previousToken = -1;
  for (let r = 0; r < layout.rowCount; r++) {
    const from = layout.rowFragStart[r] ?? 0;
    const to = layout.rowFragStart[r + 1] ?? from;
    if (layout.rowKind[r] !== RowKind.tokens) {
      expect(to).toBe(from);
      continue;
    }
    expect(to).toBeGreaterThan(from);
    let column = 0;
    for (let f = from; f < to; f++) {
      const token = layout.fragToken[f] ?? 0;
      const piece = pieces[token] ?? "";
      const start = layout.fragStart[f] ?? 0;
      const end = layout.fragEnd[f] ?? 0;
      // Fragments sit side by side from cell 0, in token order, each piece cut in order.
      expect(layout.fragColumn[f]).toBe(column);
      expect(token).toBeGreaterThanOrEqual(previousToken);
      if (token !== previousToken) expect(layout.tokenFirstRow[token]).toBe(r);
      expect(start).toBe(text[token]?.length);
      text[token] += piece.slice(start, end);
      previousToken = token;
      // Never between the two halves of a surrogate pair.
      expect(unitCells(piece.charCodeAt(start)) === 0 && start > 0).toBe(false);
      // A newline ends its row.
      if (end > start && piece[end - 1] === "\n") expect(f).toBe(to - 1);
      column += fragmentCells(layout, pieces, f);
    }
    const last = to - 1;
    const lastPiece = pieces[layout.fragToken[last] ?? 0] ?? "";
    const hangs = lastPiece[(layout.fragEnd[last] ?? 0) - 1] === "\n" ? 1 : 0;
    const isOneGlyph =
      to - from === 1 && (layout.fragEnd[from] ?? 0) - (layout.fragStart[from] ?? 0) <= 2;
    // No row wider than the columns (a newline glyph may hang one cell past; a glyph wider than
    // the whole row still gets a row of its own).
    if (!isOneGlyph) expect(column - hangs).toBeLessThanOrEqual(columns);
    // Rows break only when needed: the next row's first fragment would not have fit on this one.
    if (layout.rowKind[r + 1] === RowKind.tokens && hangs === 0) {
      expect(column + fragmentCells(layout, pieces, to)).toBeGreaterThan(columns);
    }
  }
  // Every piece is laid out whole, and a piece without a newline that fits a row is not split.
  expect(text).toEqual(pieces);
  for (const [token, piece] of pieces.entries()) {
    const first = layout.tokenFirstRow[token] ?? 0;
    if (!piece.includes("\n") && cellsOf(piece, 0, piece.length) <= columns) {
      expect(tokenRangeOfRow(layout, first)).toBeDefined();
      const fragments = Array.from(layout.fragToken).filter((t) => t === token).length;
      expect(fragments).toBe(1);
    }
  }
}

import { describe, expect, it } from "vitest";
import { flattenTrajectory } from "../../core/layout/flatTrajectory";
import { DEFAULT_HEAT_FLOOR } from "../../core/layout/heatScale";
import { layoutTokens, RowKind } from "../../core/layout/tokenRows";
import { VERDICT } from "../../core/mismatch/mismatch";
import { mismatchColor, VERDICT_COLORS } from "../../core/mismatch/mismatchScale";
import type { Trajectory } from "../../core/trajectory/types";
import { CLASSES } from "../../test/tokenRowHtml";
import {
  drawFastRows,
  type FastCanvasContext,
  type FastPalette,
  type FastRow,
  type FastRowSource,
  fastRowsOf,
  readPalette,
} from "./fastRowsCanvas";
import {
  forEachTokenCell,
  type MismatchShading,
  type TokenRowInput,
  tokenRowPlainText,
} from "./tokenCells";

const trajectory: Trajectory = {
  id: "t",
  source: { kind: "live" },
  format: "rollout-lens/v1",
  status: "truncated",
  metadata: {},
  segments: [
    {
      kind: "prompt",
      turn: 0,
      tokenIds: [1, 2, 3],
      lossMask: [0, 0, 0],
      logprobs: [null, null, null],
    },
    {
      kind: "model",
      turn: 1,
      tokenIds: [4, 5],
      lossMask: [1, 1],
      logprobs: [-0.1, -0.2],
      toolCalls: [{ id: "call_0000", name: "calc\u202e", arguments: {}, raw: "{}", span: [0, 2] }],
      cutoff: true,
    },
  ],
};
const pieces = ["Hello", " wor", "ld", "<tool_call>", "{}"];
const flat = flattenTrajectory(trajectory);
const layout = layoutTokens({
  pieces,
  segmentStarts: flat.segmentStarts,
  toolCallCounts: [0, 1],
  cutSegments: [false, true],
  columns: 40,
});
const rowsOfLayout = Array.from({ length: layout.rowKind.length }, (_, index) => ({
  index,
  y: index * 20,
  height: 20,
}));
const source: FastRowSource = {
  trajectory,
  layout,
  flat,
  pieces,
  cutReasons: [undefined, "iteration limit (2)"],
  showWhitespace: false,
  isHeatmap: false,
  heatFloor: DEFAULT_HEAT_FLOOR,
};

describe("fastRowsOf", () => {
  it("names every kind of row the way the DOM rows do", () => {
    const rows = fastRowsOf(rowsOfLayout, source);
    expect(rows.map((r) => r.kind)).toEqual([...layout.rowKind]);
    const tokenRow = rows.findIndex((r) => r.kind === RowKind.tokens);
    expect(rows[tokenRow]).toMatchObject({
      segmentKind: "prompt",
      gutter: "0",
      text: tokenRowPlainText({ row: tokenRow, layout, pieces, showWhitespace: false }),
      y: tokenRow * 20,
    });
    const texts = rows.map((r) => r.text);
    expect(texts).toContain("prompt · mask 0   turn 0   3 tokens");
    // Invisible and bidi characters are shown, never applied, on the canvas too.
    expect(texts.find((t) => t.startsWith("tool call:"))).toMatch(/^tool call: calc\S*202E/i);
    expect(texts.at(-1)).toBe("✂ Episode cut after token #4: iteration limit (2)");
  });
});

/** Records the calls a painter makes, with the fill colour at the time of each. */
function recorder() {
  const calls: string[] = [];
  const ctx = {
    fillStyle: "",
    font: "",
    textBaseline: "alphabetic",
    textAlign: "start",
    setTransform: (...args: number[]) => calls.push(`transform ${args.join(",")}`),
    fillRect: (x: number, y: number, w: number, h: number) =>
      calls.push(`rect ${ctx.fillStyle} ${x},${y},${w},${h}`),
    fillText: (text: string, x: number, y: number) =>
      calls.push(`text ${ctx.fillStyle} ${x},${y} ${text}`),
    measureText: () => ({ width: 8 }),
  };
  return { ctx: ctx as unknown as FastCanvasContext, calls };
}

const palette: FastPalette = readPalette({
  getPropertyValue: (name: string) => ` ${name.replace("--", "c-")} `,
});

describe("drawFastRows", () => {
  it("reads the theme from CSS custom properties", () => {
    expect(palette.tokBg.model).toBe("c-tok-model-a");
    expect(palette.kind.tool).toBe("c-kind-tool");
  });

  it("clears the viewport, then paints border, gutter and tinted text of each visible row", () => {
    const { ctx, calls } = recorder();
    const rows: FastRow[] = [
      { kind: RowKind.tokens, segmentKind: "model", y: 10, height: 20, gutter: "42", text: "abc" },
      // Wholly above and below the viewport: skipped.
      { kind: RowKind.tokens, segmentKind: "tool", y: -40, height: 20, gutter: "1", text: "x" },
      { kind: RowKind.tokens, segmentKind: "tool", y: 301, height: 20, gutter: "9", text: "y" },
    ];
    drawFastRows(ctx, rows, 500, 300, 2, palette);
    expect(calls).toEqual([
      "transform 2,0,0,2,0,0",
      "rect c-bg 0,0,500,300",
      "rect c-kind-model 0,10,4,20",
      "text c-muted 68,20 42",
      "rect c-tok-model-a 80,12,24,16",
      "text c-tok-model-fg 80,20 abc",
    ]);
  });

  it("marks the cut-off row in the cut colour and headers with their label", () => {
    const { ctx, calls } = recorder();
    drawFastRows(
      ctx,
      [
        { kind: RowKind.header, segmentKind: "model", y: 0, height: 30, gutter: "", text: "H" },
        {
          kind: RowKind.cutoff,
          segmentKind: "model",
          y: 30,
          height: 34,
          gutter: "",
          text: "✂ cut",
        },
      ],
      500,
      300,
      1,
      palette,
    );
    expect(calls).toContain("text c-fg 16,15 H");
    expect(calls).toContain("rect c-cut 4,34,492,26");
    expect(calls).toContain("text #ffffff 16,47 ✂ cut");
  });
});

describe("the fast path shades tokens as the DOM rows do", () => {
  // δ per token: prompt tokens not compared, token 3 clipped (lane a much higher), token 4 missing.
  const mismatch: MismatchShading = {
    delta: Float64Array.from([Number.NaN, Number.NaN, Number.NaN, 1.2, Number.NaN]),
    verdict: Uint8Array.from([0, 0, 0, VERDICT.clipped, 0]),
    extent: 0.5,
  };
  const cellsOf = (shading: Partial<FastRowSource>) => {
    const shaded = { ...source, ...shading };
    const fast = fastRowsOf(rowsOfLayout, shaded).flatMap((r) => r.cells ?? []);
    const dom: { className: string; style: string; text: string }[] = [];
    for (let row = 0; row < layout.rowKind.length; row++) {
      if (layout.rowKind[row] !== RowKind.tokens) continue;
      const s = layout.rowSegment[row] ?? 0;
      const input: TokenRowInput = {
        row,
        layout,
        pieces,
        flat,
        kind: trajectory.segments[s]?.kind ?? "model",
        showWhitespace: false,
        isHeatmap: shaded.isHeatmap,
        heatFloor: shaded.heatFloor,
        selected: undefined,
        cutToken: undefined,
        failedCalls: undefined,
        mismatch: shaded.mismatch,
      };
      forEachTokenCell(input, CLASSES, (_t, className, style, text) =>
        dom.push({ className, style, text }),
      );
    }
    return { fast, dom };
  };

  it.each([
    { mode: "mismatch", shading: { mismatch } },
    { mode: "heatmap", shading: { isHeatmap: true } },
  ])("$mode: each fragment's shade and verdict match the DOM cell's", ({ shading }) => {
    const { fast, dom } = cellsOf(shading);
    expect(fast.length).toBe(dom.length);
    fast.forEach((cell, i) => {
      const d = dom[i];
      expect(cell.text).toBe(d?.text);
      const classes = (d?.className ?? "").split(" ");
      if (cell.shade === "dim") expect(classes).toContain("dim");
      else if (cell.shade === "notRecorded") expect(classes).toContain("nr");
      else if (cell.shade)
        expect(d?.style).toBe(`background: ${cell.shade.background}; color: ${cell.shade.color}`);
      else expect(d?.style).toBe("");
      expect(classes.includes("clip")).toBe(cell.verdict === VERDICT.clipped);
    });
    expect(fast.some((c) => c.shade !== undefined && typeof c.shade === "object")).toBe(true);
  });

  it("mismatch: hatches a trained token with no lane value, shades δ, marks the clipped one", () => {
    const { fast } = cellsOf({ mismatch });
    expect(fast.map((c) => (typeof c.shade === "object" ? "colour" : c.shade))).toEqual([
      "dim",
      "dim",
      "dim",
      "colour",
      "notRecorded",
    ]);
    const { ctx, calls } = recorder();
    const rows = fastRowsOf(rowsOfLayout, { ...source, mismatch });
    drawFastRows(ctx, rows, 500, 400, 1, palette);
    const red = mismatchColor(1.2, 0.5);
    expect(calls.some((c) => c.startsWith(`rect ${red.background} `))).toBe(true);
    expect(calls.some((c) => c.startsWith(`text ${red.color} `) && c.endsWith("<tool_call>"))).toBe(
      true,
    );
    expect(calls.some((c) => c.startsWith(`rect ${VERDICT_COLORS.clipped} `))).toBe(true);
    expect(calls.filter((c) => c.startsWith("rect c-nr-b ")).length).toBeGreaterThan(0);
  });

  it("off: one tinted run per row, no cells", () => {
    expect(fastRowsOf(rowsOfLayout, source).every((r) => r.cells === undefined)).toBe(true);
  });
});

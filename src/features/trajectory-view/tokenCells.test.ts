import { describe, expect, it } from "vitest";
import { TURN_MARK_INSERTED, TURN_MARK_REMOVED } from "../../core/drift/prefixCheck";
import { flattenTrajectory } from "../../core/layout/flatTrajectory";
import { DEFAULT_HEAT_FLOOR, heatColor } from "../../core/layout/heatScale";
import { layoutTokens } from "../../core/layout/tokenRows";
import type { Trajectory } from "../../core/trajectory/types";
import { CLASSES, tokenRowHtml } from "../../test/tokenRowHtml";
import { type TokenRowInput, tokenRowPlainText } from "./tokenCells";

const trajectory: Trajectory = {
  id: "t",
  source: { kind: "live" },
  format: "rollout-lens/v1",
  status: "completed",
  metadata: {},
  segments: [
    {
      kind: "model",
      turn: 1,
      tokenIds: [5, 6, 7, 8],
      lossMask: [1, 1, 1, 0],
      logprobs: [null, -0.5, 0, null],
    },
  ],
};
const pieces = ["<b>&", " x", "<|im_end|>", ""];
const flat = flattenTrajectory(trajectory);
const layout = layoutTokens({
  pieces,
  segmentStarts: flat.segmentStarts,
  toolCallCounts: [0],
  cutSegments: [true],
  columns: 80,
});
const base: TokenRowInput = {
  row: 1,
  layout,
  pieces,
  flat,
  kind: "model",
  showWhitespace: false,
  isHeatmap: false,
  heatFloor: DEFAULT_HEAT_FLOOR,
  selected: undefined,
  cutToken: undefined,
  failedCalls: undefined,
};

/** Parses the spans back out with a regex: the test runs in node, without a DOM. */
function spans(html: string) {
  return [...html.matchAll(/<span ([^>]*)>([^<]*)<\/span>/g)].map((m) => {
    const attrs = Object.fromEntries(
      [...(m[1] ?? "").matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]),
    );
    return { ...attrs, text: m[2] };
  });
}

describe("chips", () => {
  const classesOf = (over: Partial<TokenRowInput>) =>
    spans(tokenRowHtml({ ...base, ...over }, CLASSES)).map((s) => s.class);

  it("come from the tokenizer's control ids once known, not from what the text looks like", () => {
    // Token 5 (`<b>&`) is a control id of this tokenizer; token 7 only looks like one.
    expect(classesOf({ controlTokens: new Set([5]) })).toEqual([
      "tok model special",
      "tok model odd",
      "tok model",
      "tok model odd",
    ]);
  });

  it("fall back to `<|…|>`-looking pieces while no tokenizer list is known", () => {
    expect(classesOf({ controlTokens: undefined })[2]).toBe("tok model special");
  });
});

describe("tokenRowHtml", () => {
  it("escapes piece text and marks token, parity, chips, selection and cut", () => {
    const html = tokenRowHtml({ ...base, selected: 1, cutToken: 3 }, CLASSES);
    expect(spans(html)).toEqual([
      {
        "data-t": "0",
        class: "tok model",
        role: "option",
        text: "&lt;b&gt;&amp;",
      },
      {
        "data-t": "1",
        class: "tok model odd sel",
        role: "option",
        "aria-selected": "true",
        tabindex: "0",
        text: " x",
      },
      {
        "data-t": "2",
        class: "tok model special",
        role: "option",
        text: "&lt;|im_end|&gt;",
      },
      {
        "data-t": "3",
        class: "tok model odd cut",
        role: "option",
        text: "∅",
      },
    ]);
  });

  it("marks the tokens of a tool call that failed to parse, and only those", () => {
    const html = tokenRowHtml({ ...base, failedCalls: Uint8Array.of(0, 1, 1, 0) }, CLASSES);
    expect(spans(html).map((s) => s.class)).toEqual([
      "tok model",
      "tok model odd fc",
      "tok model special fc",
      "tok model odd",
    ]);
  });

  it("marks the tokens the selected turn's re-rendering drops, and where it inserts tokens", () => {
    const turnMarks = Uint8Array.of(0, TURN_MARK_REMOVED, TURN_MARK_INSERTED, 0);
    expect(spans(tokenRowHtml({ ...base, turnMarks }, CLASSES)).map((s) => s.class)).toEqual([
      "tok model",
      "tok model odd tr",
      "tok model special ti",
      "tok model odd",
    ]);
  });

  it.each([
    { name: "whitespace off", showWhitespace: false, text: " x" },
    { name: "whitespace on", showWhitespace: true, text: "·x" },
  ])("shows whitespace glyphs only when asked ($name)", ({ showWhitespace, text }) => {
    expect(spans(tokenRowHtml({ ...base, showWhitespace }, CLASSES))[1]?.text).toBe(text);
  });

  it("shades trained tokens in heatmap mode: dim untrained, hatched unrecorded, colour by p", () => {
    const out = spans(tokenRowHtml({ ...base, isHeatmap: true }, CLASSES));
    expect(out.map((s) => s.class)).toEqual([
      "tok model nr",
      "tok model odd",
      "tok model special",
      "tok model odd dim",
    ]);
    // p = e^-0.5 ≈ 61 % sits near the top of the log scale (light, dark text).
    expect(out[1]?.style).toMatch(/^background: rgb\(\d+, \d+, \d+\); color: #111111$/);
    expect(out[1]?.style).toBe(
      `background: ${heatColor(-0.5, DEFAULT_HEAT_FLOOR).background}; color: #111111`,
    );
    expect(out[2]?.style).toMatch(/^background: rgb\(253, 231, 37\); color: #111111$/);
    expect(out[0]?.style).toBeUndefined();
  });

  it.each([false, true])(
    "a row's plain text (fast scrolling) is its boxes' text side by side (whitespace %s)",
    (showWhitespace) => {
      const boxes = spans(tokenRowHtml({ ...base, showWhitespace }, CLASSES));
      const unescapeHtml = (t: string | undefined) =>
        (t ?? "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
      const plain = tokenRowPlainText({ ...base, showWhitespace });
      expect(plain).toBe(boxes.map((b) => unescapeHtml(b.text)).join(""));
      expect(plain).toContain("<b>&");
    },
  );
});

import { describe, expect, it } from "vitest";
import { atroposMismatchFile } from "../../../e2e/fixtures/mismatchFiles";
import { readRolloutLine, readRolloutLineLanes } from "../formats/readRolloutLine";
import {
  createFileMismatchScan,
  emptyCharts,
  finishCharts,
  type MismatchScanOptions,
  type RowMismatch,
  rowIntoCharts,
  scanMismatchLine,
} from "./fileMismatch";
import { correction } from "./mismatch";

/*
 * The lane scan's fast path (FormatAdapter.readLanes: atropos rows read straight off the group's
 * arrays, no trajectories) against the full path it stands in for (readRolloutLine, the
 * invariant check, rowIntoCharts): the same rows, charts and bad lines on every line, and the
 * fast path declines each line that is not the plain case.
 */

/** The full path: every line read into trajectories, each row charted from its trajectory. */
function fullPath(lines: readonly string[], options: MismatchScanOptions) {
  const charts = emptyCharts();
  const rows: (RowMismatch | undefined)[] = [];
  let badLines = 0;
  let format: string | undefined;
  lines.forEach((text, i) => {
    const read = readRolloutLine(text, i + 1, format as never);
    if (read.kind === "blank") return;
    if (read.kind === "error") {
      badLines++;
      return;
    }
    format ??= read.format;
    for (const t of read.trajectories) {
      const out = rowIntoCharts(charts, t, rows.length, i + 1, options);
      rows.push(out.ok ? out.row : undefined);
    }
  });
  return { rows, badLines, format, charts: finishCharts(charts) };
}

function scanned(lines: readonly string[], options: MismatchScanOptions) {
  const scan = createFileMismatchScan();
  lines.forEach((text, i) => {
    scanMismatchLine(scan, text, i + 1, 0, options);
  });
  const { rows, badLines, format } = scan;
  return { rows, badLines, format, charts: finishCharts(scan.charts) };
}

type Group = Record<string, unknown> & {
  tokens: number[][];
  masks: number[][];
  inference_logprobs?: number[][];
  ref_logprobs: (number | null)[][];
};

const groups = atroposMismatchFile(12)
  .text.trimEnd()
  .split("\n")
  .map((line) => JSON.parse(line) as Group);

/** Group `g` changed by `edit` (on a deep copy), as a line. */
function edited(g: number, edit: (group: Group) => void): string {
  const copy = structuredClone(groups[g]) as Group;
  edit(copy);
  return JSON.stringify(copy);
}

const plain = [
  ...groups.map((g) => JSON.stringify(g)),
  // No sampled logprobs at all: read off the arrays too, nothing compared against them.
  edited(8, (g) => {
    delete g.inference_logprobs;
  }),
];
/** Lines the fast path must leave to the full path, each with why. */
const declined: Record<string, string> = {
  "a row opening with a trained token": edited(1, (g) => {
    (g.masks[2] as number[])[0] = (g.tokens[2] as number[])[0] as number;
  }),
  "a logprob > 0 on a trained token": edited(2, (g) => {
    (g.inference_logprobs?.[1] as number[])[30] = 0.25;
  }),
  "ref_logprobs missing on a row": edited(3, (g) => {
    g.ref_logprobs[0] = [1, 2];
  }),
  "a ref_logprobs entry that is not a number": edited(4, (g) => {
    (g.ref_logprobs[3] as unknown[])[5] = "x";
  }),
  "lanes of our own": edited(5, (g) => {
    g.logprob_lanes = { trainer: g.ref_logprobs };
  }),
  "a mask neither -100 nor the token": edited(6, (g) => {
    (g.masks[0] as number[])[40] = 7;
  }),
  "masks of the wrong length": edited(7, (g) => {
    g.masks[1] = [-100];
  }),
};

describe("the lane scan's fast path", () => {
  it("reads the plain atropos line without trajectories, and declines the others", () => {
    for (const line of plain) {
      expect(readRolloutLineLanes(line, 1, undefined, undefined, undefined).kind).toBe("lanes");
    }
    for (const lanes of [
      ["sampled", "reference"],
      ["reference", "reference"],
    ] as const) {
      expect(
        readRolloutLineLanes(plain[0] as string, 1, "atropos", undefined, lanes),
      ).toMatchObject({ kind: "lanes", lanes });
    }
    for (const [why, line] of Object.entries(declined)) {
      const read = readRolloutLineLanes(line, 1, undefined, undefined, undefined);
      expect(read.kind, why).not.toBe("lanes");
      expect(read).toEqual(readRolloutLine(line, 1));
    }
    // Lanes it does not hold, and another format named by the scan: the full path's answer.
    const other = readRolloutLineLanes(plain[0] as string, 1, undefined, undefined, [
      "ref_logprobs",
      "sampled",
    ]);
    expect(other.kind).toBe("trajectories");
    expect(readRolloutLineLanes(plain[0] as string, 1, "nemo-rl", undefined, undefined)).toEqual(
      readRolloutLine(plain[0] as string, 1, "nemo-rl"),
    );
  });

  it("gives the full path's rows, charts and bad lines, bit for bit", () => {
    const lines = [
      ...plain.slice(0, 4),
      ...Object.values(declined),
      "",
      "{not json",
      ...plain.slice(4),
    ];
    const options: MismatchScanOptions[] = [
      {},
      { lanes: ["reference", "sampled"], correction: correction("token-mask", { cap: 1.03 }) },
      { lanes: ["sampled", "reference"], correction: correction("seq-trunc", { cap: 1.5 }) },
      { lanes: ["sampled", "sampled"], correction: correction("geo-mask", { cap: 1.01 }) },
      { lanes: ["trainer", "sampled"] },
    ];
    for (const o of options) {
      const want = fullPath(lines, o);
      const got = scanned(lines, o);
      expect(got.badLines).toBeGreaterThan(0);
      expect(got.charts.compared).toBeGreaterThan(o.lanes?.[0] === "trainer" ? -1 : 1000);
      expect(got).toEqual(want);
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    }
  });
});

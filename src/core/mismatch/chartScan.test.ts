import { describe, expect, it } from "vitest";
import { nemoRlMismatchFile } from "../../../e2e/fixtures/mismatchFiles";
import { createFileMismatchScan, finishCharts, scanMismatchLine } from "./fileMismatch";

/** Lines of a NeMo-RL file with prev_logprobs against generation_logprobs, many tokens a row. */
function lines(rows: number): string[] {
  return nemoRlMismatchFile(rows).text.trimEnd().split("\n");
}

describe("each scan keeps its own state", () => {
  it("two scans run line by line in turn chart what each gives alone", () => {
    const a = lines(300);
    const b = lines(120).reverse();
    const alone = (ls: readonly string[]) => {
      const scan = createFileMismatchScan();
      ls.forEach((line, i) => {
        scanMismatchLine(scan, line, i + 1, 0, {});
      });
      return { rows: scan.rows, charts: finishCharts(scan.charts) };
    };
    const one = createFileMismatchScan();
    const two = createFileMismatchScan();
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const lineA = a[i];
      const lineB = b[i];
      if (lineA !== undefined) scanMismatchLine(one, lineA, i + 1, 0, {});
      if (lineB !== undefined) scanMismatchLine(two, lineB, i + 1, 0, {});
    }
    const wantA = alone(a);
    const wantB = alone(b);
    // Enough tokens that the sample's pool was cut and the worst tokens' cut-off moved.
    expect(wantA.charts.compared).toBeGreaterThan(10_000);
    expect(wantA.charts.scatter).toHaveLength(1500);
    expect({ rows: one.rows, charts: finishCharts(one.charts) }).toEqual(wantA);
    expect({ rows: two.rows, charts: finishCharts(two.charts) }).toEqual(wantB);
    expect(wantA.charts).not.toEqual(wantB.charts);
  });

  it("a scan's state is no part of its charts: JSON and structured clone carry the charts alone", () => {
    const scan = createFileMismatchScan();
    lines(40).forEach((line, i) => {
      scanMismatchLine(scan, line, i + 1, 0, {});
    });
    const mid = scan.charts;
    expect(Object.getOwnPropertySymbols(mid)).toHaveLength(1);
    expect(Object.keys(structuredClone(mid))).toEqual(Object.keys(mid));
    expect(Object.getOwnPropertySymbols(structuredClone(mid))).toEqual([]);
    expect(JSON.parse(JSON.stringify(mid))).toEqual(structuredClone(mid));
    // Finished, the charts hold the scan's sample and nothing else.
    const done = finishCharts(mid);
    expect(Object.getOwnPropertySymbols(done)).toEqual([]);
    expect(done.scatter.length).toBeGreaterThan(0);
  });
});

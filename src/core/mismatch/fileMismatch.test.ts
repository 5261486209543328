import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { stringifyJsonLine } from "../formats/jsonLine";
import { writeRolloutLens } from "../formats/rolloutLens";
import { seededRandom } from "../random";
import { withLane } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import {
  createFileMismatchScan,
  emptyCharts,
  finishCharts,
  HIST_BINS,
  HIST_SPAN,
  HIST_WIDTH,
  kthSmallest,
  type MismatchToken,
  mergeCharts,
  mismatchIntoCharts,
  positionBucket,
  positionBucketStart,
  probBucketOfLog,
  rowIntoCharts,
  rowMismatchOf,
  SCATTER_POINTS,
  samplePriority,
  scanMismatchLine,
  scanMismatchRecord,
  WORST_TOKENS,
} from "./fileMismatch";
import { CORRECTION_KINDS, correction } from "./mismatch";
import { trajectoryMismatch } from "./trajectoryMismatch";

/** `count` trajectories of a prompt and one model turn of random length, with a noisy trainer lane. */
function corpus(count: number, seed: number): Trajectory[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const n = 1 + Math.floor(rand() * 300);
    const logprobs = Array.from({ length: n }, () => Math.log(0.01 + 0.99 * rand()));
    const t = trajectory(
      [
        promptSegment([1, 2, 3]),
        modelSegment(
          Array.from({ length: n }, (_, k) => 100 + k),
          1,
          { logprobs },
        ),
      ],
      { id: `t${i}` },
    );
    // Mostly small noise, sometimes a large jump; a null now and then (not compared).
    const trainer = [null, null, null, ...logprobs].map((v, k) => {
      if (v === null || rand() < 0.02) return null;
      const jump = rand() < 0.03 ? (rand() - 0.5) * 8 : 0;
      return v + (rand() - 0.5) * 0.05 + jump + (k === 3 ? 0.001 * i : 0);
    });
    return withLane(t, "trainer", trainer);
  });
}

/** Every compared token of `ts`, straight from the definitions: δ = trainer − sampled. */
function directTokens(ts: readonly Trajectory[]): MismatchToken[] {
  const out: MismatchToken[] = [];
  ts.forEach((t, row) => {
    const ids = t.segments.flatMap((s) => [...s.tokenIds]);
    const sampled = t.segments.flatMap((s) => [...s.logprobs]);
    const mask = t.segments.flatMap((s) => [...s.lossMask]);
    const trainer = t.logprobLanes?.trainer ?? [];
    ids.forEach((id, k) => {
      const a = trainer[k];
      const b = sampled[k];
      if (mask[k] !== 1 || typeof a !== "number" || typeof b !== "number") return;
      out.push({ row, line: row + 1, token: k, tokenId: id, a, b, delta: a - b });
    });
  });
  return out;
}

function chartsOf(ts: readonly Trajectory[], from = 0) {
  const charts = emptyCharts();
  ts.forEach((t, i) => {
    const out = mismatchIntoCharts(charts, t, from + i, from + i + 1, {});
    if (!out.ok) throw new Error(out.reason);
  });
  return finishCharts(charts);
}

describe("file-wide mismatch charts", () => {
  const ts = corpus(60, 7);
  const tokens = directTokens(ts);

  it("bins every compared token as the definitions say", () => {
    const charts = chartsOf(ts);
    expect(charts.compared).toBe(tokens.length);
    const histogram = new Array(HIST_BINS).fill(0);
    let under = 0;
    let over = 0;
    for (const { delta } of tokens) {
      const x = Math.log10(Math.exp(delta));
      if (x < -HIST_SPAN) under++;
      else if (x >= HIST_SPAN) over++;
      else histogram[Math.floor((x + HIST_SPAN) / HIST_WIDTH + 1e-9)]++;
    }
    expect(charts.histogram).toEqual(histogram);
    expect([charts.under, charts.over]).toEqual([under, over]);
    const r = tokens.map((t) => Math.exp(t.delta));
    expect(charts.beyond2x).toBe(r.filter((x) => x > 2 || x < 0.5).length);
    expect(charts.beyond5x).toBe(r.filter((x) => x > 5 || x < 0.2).length);
    expect(charts.beyond5x).toBeGreaterThan(0);
    // Rollout-probability buckets of width 0.1.
    charts.byProbability.forEach((b, i) => {
      const inside = tokens.filter((t) => Math.min(9, Math.floor(Math.exp(t.b) * 10)) === i);
      expect(b.count).toBe(inside.length);
      expect(b.sumAbsDelta).toBeCloseTo(
        inside.reduce((s, t) => s + Math.abs(t.delta), 0),
        9,
      );
      expect(b.maxAbsDelta).toBe(Math.max(0, ...inside.map((t) => Math.abs(t.delta))));
    });
    // Position buckets.
    charts.byPosition.forEach((b) => {
      const inside = tokens.filter((t) => t.token >= b.start && t.token < b.end);
      expect(b.count).toBe(inside.length);
    });
    expect(charts.byPosition.reduce((s, b) => s + b.count, 0)).toBe(tokens.length);
  });

  it("keeps the worst tokens, largest |δ| first, and a sample chosen by hash", () => {
    const charts = chartsOf(ts);
    const worst = [...tokens]
      .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.row - y.row || x.token - y.token)
      .slice(0, WORST_TOKENS);
    expect(charts.worst).toEqual(worst);
    const sample = [...tokens]
      .sort(
        (x, y) =>
          samplePriority(x.row, x.token) - samplePriority(y.row, y.token) ||
          x.row - y.row ||
          x.token - y.token,
      )
      .slice(0, SCATTER_POINTS);
    expect(tokens.length).toBeGreaterThan(SCATTER_POINTS);
    expect(charts.scatter.slice().sort((x, y) => x.row - y.row || x.token - y.token)).toEqual(
      sample.sort((x, y) => x.row - y.row || x.token - y.token),
    );
  });

  it("gives the same charts whatever ranges the file was scanned in", () => {
    const whole = chartsOf(ts);
    const merged = mergeCharts(
      mergeCharts(chartsOf(ts.slice(0, 17)), chartsOf(ts.slice(17, 40), 17)),
      chartsOf(ts.slice(40), 40),
    );
    expect(merged.worst).toEqual(whole.worst);
    const key = (t: MismatchToken) => `${t.row}.${t.token}`;
    expect(merged.scatter.map(key).sort()).toEqual(whole.scatter.map(key).sort());
    expect(merged.histogram).toEqual(whole.histogram);
    expect(merged.byPosition.map((b) => b.count)).toEqual(whole.byPosition.map((b) => b.count));
    expect(merged.byProbability.map((b) => b.count)).toEqual(
      whole.byProbability.map((b) => b.count),
    );
  });

  it("gives each row the numbers computeMismatch gives, under every correction", () => {
    for (const kind of CORRECTION_KINDS) {
      const c = correction(kind, { cap: 1.05 });
      ts.forEach((t, i) => {
        const into = rowIntoCharts(emptyCharts(), t, i, i + 1, { correction: c });
        const full = trajectoryMismatch(t, ["trainer", "sampled"], c);
        if (!into.ok || !full.ok) throw new Error("no lanes");
        const want = rowMismatchOf(full.result.stats);
        expect(into.row.compared).toBe(want.compared);
        expect(into.row.maxAbsDelta).toBe(want.maxAbsDelta);
        expect(into.row.meanAbsDelta).toBeCloseTo(want.meanAbsDelta, 12);
        expect(into.row.fractionCorrected).toBeCloseTo(want.fractionCorrected, 12);
      });
    }
  });

  it("position buckets cover every index once, in half octaves", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map(positionBucketStart)).toEqual([
      0, 1, 2, 3, 4, 5, 8, 11, 16,
    ]);
    const wrong: number[] = [];
    for (let k = 0; k < 70_000; k++) {
      const b = positionBucket(k);
      if (!(positionBucketStart(b) <= k && k < positionBucketStart(b + 1))) wrong.push(k);
    }
    expect(wrong).toEqual([]);
  });

  it("scans lines into rows at their file row, bad lines counted, tokens located", () => {
    const scan = createFileMismatchScan();
    const lines = ts.slice(0, 3).map((t) => stringifyJsonLine(writeRolloutLens(t)));
    const options = { correction: correction("token-trunc", { cap: 1.5 }) };
    scanMismatchLine(scan, lines[0] ?? "", 1, 10, options);
    scanMismatchLine(scan, "{not json", 2, 10, options);
    scanMismatchLine(scan, `${lines[1]}\r`, 3, 10, options);
    scanMismatchLine(scan, "", 4, 10, options);
    scanMismatchLine(scan, lines[2] ?? "", 5, 10, options);
    expect(scan.rows).toHaveLength(3);
    expect(scan.badLines).toBe(1);
    expect(scan.charts.worst.every((t) => t.row >= 10 && t.row <= 12)).toBe(true);
    const worst = scan.charts.worst[0];
    expect(worst && [1, 3, 5][worst.row - 10]).toBe(worst?.line);
    const direct = directTokens(ts.slice(0, 3));
    const r = direct.filter((t) => t.row === 1).map((t) => Math.exp(t.delta));
    expect(scan.rows[1]?.fractionCorrected).toBeCloseTo(
      r.filter((x) => x > 1.5).length / r.length,
      12,
    );
    expect(scan.rows[1]?.maxAbsDelta).toBe(
      Math.max(...direct.filter((t) => t.row === 1).map((t) => Math.abs(t.delta))),
    );
  });

  it("reads NeMo-RL's prev_logprobs against generation_logprobs, and atropos ref_logprobs", () => {
    const scan = createFileMismatchScan();
    fixtureLines("reference-nemo-rl.jsonl").forEach((line, i) => {
      scanMismatchLine(scan, line, i + 1, 0, {});
    });
    expect(scan.format).toBe("nemo-rl");
    expect(scan.rows.map((r) => r?.compared)).toEqual([4, 8]);
    // Line 2's last token: prev −0.0013 against generation −0.0003.
    expect(scan.rows[1]?.maxAbsDelta).toBeCloseTo(0.001, 12);
    // Line 1's first model token: prev −0.3 against generation −0.31.
    expect(scan.charts.worst[0]).toMatchObject({ row: 0, line: 1, token: 13, tokenId: 151657 });
    expect(scan.charts.worst[0]?.delta).toBeCloseTo(0.01, 12);
  });

  it("scans records (a Parquet row, a JSON document's element) as it scans the same lines", () => {
    const files = [
      fixtureLines("reference-nemo-rl.jsonl"),
      ts.slice(0, 4).map((t) => stringifyJsonLine(writeRolloutLens(t))),
    ];
    const options = { correction: correction("token-mask") };
    for (const lines of files) {
      const byLine = createFileMismatchScan();
      const byRecord = createFileMismatchScan();
      lines.forEach((line, i) => {
        scanMismatchLine(byLine, line, i + 1, 3, options);
        scanMismatchRecord(byRecord, JSON.parse(line), i + 1, 3, options);
      });
      scanMismatchRecord(byRecord, [1, 2], lines.length + 1, 3, options);
      expect(byRecord.badLines).toBe(byLine.badLines + 1);
      expect(byRecord.format).toBe(byLine.format);
      expect(byRecord.rows).toEqual(byLine.rows);
      expect(finishCharts(byRecord.charts)).toEqual(finishCharts(byLine.charts));
      expect(byRecord.rows.filter((r) => r !== undefined).length).toBeGreaterThan(1);
    }
  });

  it("reads a record through a column mapping, as the table's index does", () => {
    const mapping = {
      layout: "split",
      promptTokenIds: "p",
      responseTokenIds: "r",
      responseLogprobs: "lp",
    } as const;
    const scan = createFileMismatchScan();
    const record = {
      p: [1, 2],
      r: [3, 4],
      lp: [-0.5, -0.25],
      logprob_lanes: { trainer: [null, null, -0.4, -0.25] },
    };
    scanMismatchRecord(scan, record, 1, 0, {}, "t.parquet", mapping);
    expect(scan.format).toBe("slime");
    expect(scan.rows[0]?.compared).toBe(2);
    expect(scan.rows[0]?.maxAbsDelta).toBeCloseTo(0.1, 12);
    scanMismatchRecord(scan, { p: [1], r: ["x"] }, 2, 0, {}, "t.parquet", mapping);
    expect(scan.badLines).toBe(1);
  });
});

/** The double next to `x` towards +∞ (`up`) or −∞. */
function nextDouble(x: number, up: boolean): number {
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, x > 0 === up ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

describe("the charts' building blocks", () => {
  /** The rollout-probability bucket by its definition: how many of log 0.1 … log 0.9 y reaches. */
  const bucketOf = (y: number) => {
    let b = 0;
    for (let i = 1; i < 10; i++) if (y >= Math.log(i / 10)) b = i;
    return b;
  };

  it("finds the probability bucket of every logprob as the definition does, at each edge", () => {
    const ys: number[] = [0, -0, 1e-300, -1e-300, 3, -50, -Number.MAX_VALUE, Number.MAX_VALUE];
    const edges = [
      ...Array.from({ length: 9 }, (_, i) => Math.log((i + 1) / 10)),
      // The table's cell edges, and just past the last cell.
      ...Array.from({ length: 200 }, (_, ci) => -ci / 64),
    ];
    for (const e of edges) {
      let down = e;
      let up = e;
      ys.push(e);
      for (let step = 0; step < 4; step++) {
        down = nextDouble(down, false);
        up = nextDouble(up, true);
        ys.push(down, up);
      }
    }
    const wrong = ys.filter((y) => probBucketOfLog(y) !== bucketOf(y));
    expect(wrong).toEqual([]);
    fc.assert(
      fc.property(fc.double({ min: -10, max: 1, noNaN: true }), (y) => {
        expect(probBucketOfLog(y)).toBe(bucketOf(y));
      }),
      { numRuns: 20_000 },
    );
  });

  it("selects the k-th smallest value, duplicates included", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 300 }),
        fc.nat(),
        (values, pick) => {
          const k = pick % values.length;
          const sorted = [...values].sort((x, y) => x - y);
          expect(kthSmallest(Float64Array.from(values), k)).toBe(sorted[k]);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

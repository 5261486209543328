import { describe, expect, it } from "vitest";
import { atroposMismatchFile, nemoRlMismatchFile } from "../../../e2e/fixtures/mismatchFiles";
import { fixtureLines } from "../../test/fixtureFiles";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { stringifyJsonLine } from "../formats/jsonLine";
import { readRolloutLine } from "../formats/readRolloutLine";
import { writeRolloutLens } from "../formats/rolloutLens";
import { seededRandom } from "../random";
import { laneValues, SAMPLED_LANE, withLane } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import {
  createFileMismatchScan,
  finishCharts,
  HIST_BINS,
  histogramBin,
  type MismatchBucket,
  type MismatchCharts,
  type MismatchToken,
  positionBucket,
  positionBucketStart,
  type RowMismatch,
  SCATTER_POINTS,
  samplePriority,
  scanMismatchLine,
  WORST_TOKENS,
} from "./fileMismatch";
import { CORRECTION_KINDS, type Correction, correction, isCorrected, safeExp } from "./mismatch";
import { defaultLanes } from "./trajectoryMismatch";

/*
 * The file scan against a reference written from the definitions (docs/mismatch.md, "File-wide")
 * one token at a time, with the same additions in the same order, so every number must be equal,
 * not close: the scan's typed-array loop, its probability-bucket table, its per-row position
 * sums and its pooled sample may not change a bit of the charts or of any row.
 */

const bucket = (start: number, end: number): MismatchBucket => ({
  start,
  end,
  count: 0,
  sumAbsDelta: 0,
  maxAbsDelta: 0,
  beyond2x: 0,
});

/** The rollout-probability bucket by its definition: how many of log 0.1 … log 0.9 y reaches. */
function probBucket(y: number): number {
  let b = 0;
  for (let i = 1; i < 10; i++) if (y >= Math.log(i / 10)) b = i;
  return b;
}

interface Reference {
  charts: MismatchCharts;
  rows: (RowMismatch | undefined)[];
}

/** Every row's compared tokens, straight from the trajectory and lanes. */
function referenceRow(t: Trajectory, row: number, line: number, c: Correction, ref: Reference) {
  const lanes = defaultLanes(t);
  const a = lanes && laneValues(t, lanes[0]);
  const b = lanes && laneValues(t, lanes[1] ?? SAMPLED_LANE);
  if (!a || !b) {
    ref.rows.push(undefined);
    return;
  }
  const { charts } = ref;
  const [laneA, laneB = SAMPLED_LANE] = lanes;
  const pair = charts.lanePairs.find((p) => p.a === laneA && p.b === laneB);
  if (pair) pair.rows++;
  else charts.lanePairs.push({ a: laneA, b: laneB, rows: 1 });
  const mask = t.segments.flatMap((s) => [...s.lossMask]);
  const ids = t.segments.flatMap((s) => [...s.tokenIds]);
  let compared = 0;
  let sum = 0;
  let sumAbs = 0;
  let maxAbs = 0;
  let corrected = 0;
  // Position buckets: the row's sums per bucket first, then added to the file's.
  const rowPos = new Map<number, { count: number; sum: number; max: number; far: number }>();
  mask.forEach((m, k) => {
    const x = a[k];
    const y = b[k];
    if (m !== 1 || typeof x !== "number" || typeof y !== "number") return;
    const d = x - y;
    if (!Number.isFinite(d)) return;
    const abs = Math.abs(d);
    compared++;
    sum += d;
    sumAbs += abs;
    maxAbs = Math.max(maxAbs, abs);
    if ((c.kind === "token-trunc" || c.kind === "token-mask") && isCorrected(c, safeExp(d))) {
      corrected++;
    }
    const far = abs > Math.LN2;
    charts.compared++;
    if (far) charts.beyond2x++;
    if (abs > Math.log(5)) charts.beyond5x++;
    const bin = histogramBin(d);
    if (bin < 0) charts.under++;
    else if (bin >= HIST_BINS) charts.over++;
    else charts.histogram[bin] = (charts.histogram[bin] ?? 0) + 1;
    const pb = charts.byProbability[probBucket(y)] as MismatchBucket;
    pb.count++;
    pb.sumAbsDelta += abs;
    pb.maxAbsDelta = Math.max(pb.maxAbsDelta, abs);
    if (far) pb.beyond2x++;
    const p = positionBucket(k);
    const at = rowPos.get(p) ?? { count: 0, sum: 0, max: 0, far: 0 };
    rowPos.set(p, {
      count: at.count + 1,
      sum: at.sum + abs,
      max: Math.max(at.max, abs),
      far: at.far + (far ? 1 : 0),
    });
    const token: MismatchToken = {
      row,
      line,
      token: k,
      tokenId: ids[k] ?? -1,
      a: x,
      b: y,
      delta: d,
    };
    charts.scatter.push(token);
    charts.worst.push(token);
  });
  for (const [p, s] of rowPos) {
    while (charts.byPosition.length <= p) {
      const i = charts.byPosition.length;
      charts.byPosition.push(bucket(positionBucketStart(i), positionBucketStart(i + 1)));
    }
    const pb = charts.byPosition[p] as MismatchBucket;
    pb.count += s.count;
    pb.sumAbsDelta += s.sum;
    pb.maxAbsDelta = Math.max(pb.maxAbsDelta, s.max);
    pb.beyond2x += s.far;
  }
  if (c.kind !== "token-trunc" && c.kind !== "token-mask" && compared > 0) {
    const logW = c.kind === "geo-mask" ? sum / compared : sum;
    if (isCorrected(c, safeExp(logW))) corrected = compared;
  }
  ref.rows.push({
    compared,
    maxAbsDelta: maxAbs,
    meanAbsDelta: compared === 0 ? 0 : sumAbs / compared,
    fractionCorrected: compared === 0 ? 0 : corrected / compared,
  });
}

function reference(lines: readonly string[], c: Correction): Reference {
  const ref: Reference = {
    charts: {
      compared: 0,
      beyond2x: 0,
      beyond5x: 0,
      histogram: new Array(HIST_BINS).fill(0),
      under: 0,
      over: 0,
      scatter: [],
      byProbability: Array.from({ length: 10 }, (_, i) => bucket(i / 10, (i + 1) / 10)),
      byPosition: [],
      worst: [],
      lanePairs: [],
    },
    rows: [],
  };
  lines.forEach((text, i) => {
    const read = readRolloutLine(text, i + 1);
    if (read.kind !== "trajectories") return;
    for (const t of read.trajectories) referenceRow(t, ref.rows.length, i + 1, c, ref);
  });
  const { charts } = ref;
  charts.scatter = charts.scatter
    .sort(
      (x, y) =>
        samplePriority(x.row, x.token) - samplePriority(y.row, y.token) ||
        x.row - y.row ||
        x.token - y.token,
    )
    .slice(0, SCATTER_POINTS);
  charts.worst = charts.worst
    .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.row - y.row || x.token - y.token)
    .slice(0, WORST_TOKENS);
  return ref;
}

function scanned(lines: readonly string[], c: Correction) {
  const scan = createFileMismatchScan();
  lines.forEach((text, i) => {
    scanMismatchLine(scan, text, i + 1, 0, { correction: c });
  });
  // The decomposition beside the charts has its own reference (decompositionCharts.test.ts).
  const { decomposition: _split, ...charts } = finishCharts(scan.charts);
  const rows = scan.rows.map((row) => {
    if (!row) return row;
    const { decomposition: _row, ...rest } = row;
    return rest;
  });
  return { charts, rows };
}

/**
 * rollout-lens/v1 lines of several turns: prompts of any length (rows start in any position
 * bucket), tool turns between model turns, sampled logprobs and trainer values missing now and
 * then, exact zeros (−0 too), far tokens and a NaN.
 */
function multiTurnLines(count: number): string[] {
  const rand = seededRandom(29);
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 50_000));
  const logprob = () => {
    const u = rand();
    if (u < 0.05) return u < 0.02 ? -0 : 0;
    if (u < 0.08) return null;
    return u < 0.6 ? Math.log(0.85 + 0.15 * rand()) : Math.log(1e-6 + rand());
  };
  return Array.from({ length: count }, (_, i) => {
    const segments = [promptSegment(ids(1 + Math.floor(rand() * 70)))];
    const turns = 1 + Math.floor(rand() * 4);
    for (let turn = 1; turn <= turns; turn++) {
      const n = 1 + Math.floor(rand() * 400);
      segments.push(modelSegment(ids(n), turn, { logprobs: Array.from({ length: n }, logprob) }));
      if (turn < turns) segments.push(toolSegment(ids(1 + Math.floor(rand() * 30)), turn));
    }
    const t = trajectory(segments, { id: `m${i}` });
    const sampled = segments.flatMap((s) => [...s.logprobs]);
    const trainer = sampled.map((v) => {
      if (v === null || rand() < 0.03) return null;
      if (rand() < 0.002) return Number.NaN;
      const far = rand() < 0.02 ? (rand() - 0.5) * 10 : 0;
      return rand() < 0.05 ? v : Math.min(0, v + (rand() - 0.5) * 0.1 + far);
    });
    return stringifyJsonLine(writeRolloutLens(withLane(t, "trainer", trainer)));
  });
}

describe("the file-wide mismatch scan, exactly", () => {
  const files = {
    "nemo-rl": nemoRlMismatchFile(60).text.trimEnd().split("\n"),
    atropos: atroposMismatchFile(40).text.trimEnd().split("\n"),
    "rollout-lens/v1": multiTurnLines(80),
    "reference-nemo-rl": fixtureLines("reference-nemo-rl.jsonl"),
    "reference-atropos": fixtureLines("reference-atropos.jsonl"),
  };

  for (const [name, lines] of Object.entries(files)) {
    it(`gives the reference's rows and charts bit for bit (${name})`, () => {
      for (const kind of CORRECTION_KINDS) {
        const c = correction(kind, { cap: 1.02 });
        const want = reference(lines, c);
        const got = scanned(lines, c);
        expect(got.rows).toEqual(want.rows);
        expect(got.charts).toEqual(want.charts);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      }
    });
  }
});

import { seededRandom } from "../random";
import type { RowName } from "./knobs";
import type { BisectRow } from "./table";

/** A file row that can be bisected, or why it is skipped. */
export type SampleCandidate =
  | { readonly row: number; readonly eligible: true }
  | { readonly row: number; readonly eligible: false; readonly reason: string };

/** The rows picked for a sample, ascending, and every row left out with the reason. */
export interface SamplePick {
  readonly rows: number[];
  readonly skipped: { readonly row: number; readonly reason: string }[];
}

/**
 * N of the eligible rows, chosen by a seeded shuffle (mulberry32, Fisher–Yates): the same file,
 * N and seed pick the same rows. Ineligible rows are skipped with their reason; eligible rows not
 * drawn are not listed (they were not chosen, nothing is wrong with them).
 */
export function pickSample(
  candidates: readonly SampleCandidate[],
  n: number,
  seed: number,
): SamplePick {
  const pool = candidates.filter((c) => c.eligible).map((c) => c.row);
  const random = seededRandom(seed);
  const take = Math.min(n, pool.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    const swap = pool[i] as number;
    pool[i] = pool[j] as number;
    pool[j] = swap;
  }
  const skipped = candidates.flatMap((c) => (c.eligible ? [] : [{ row: c.row, reason: c.reason }]));
  return { rows: pool.slice(0, take).sort((a, b) => a - b), skipped };
}

/** One knob over a sample of rows: token-weighted statistics over every row where it ran. */
export type SampleRow =
  | {
      readonly knob: RowName;
      readonly status: "ran";
      /** Rows where the knob ran. */
      readonly rows: number;
      /** Rows where it did not, with the reason: never counted as agreeing. */
      readonly unchecked: readonly { readonly row: number; readonly reason: string }[];
      readonly compared: number;
      readonly missing: number;
      /** Σ |δ| / Σ compared over the rows (each row weighted by its compared tokens). */
      readonly meanAbsDelta: number;
      readonly maxAbsDelta: number;
      /** The row and token index of the largest |δ|; -1 when nothing is compared. */
      readonly maxRow: number;
      readonly maxAt: number;
      /** Σ k3 / Σ compared. */
      readonly k3: number;
      readonly outside: number;
      readonly fractionOutside: number;
    }
  | {
      readonly knob: RowName;
      readonly status: "unchecked";
      readonly unchecked: readonly { readonly row: number; readonly reason: string }[];
    };

/** One bisected row of a sample: its file row and its table. */
export interface SampledTable {
  readonly row: number;
  readonly table: readonly BisectRow[];
}

interface Sums {
  ran: number;
  compared: number;
  missing: number;
  sumAbs: number;
  sumK3: number;
  outside: number;
  maxAbs: number;
  maxRow: number;
  maxAt: number;
  unchecked: { row: number; reason: string }[];
}

function add(s: Sums, row: number, r: BisectRow): void {
  if (r.status === "unchecked") {
    s.unchecked.push({ row, reason: r.reason });
    return;
  }
  const x = r.stats;
  s.ran++;
  s.compared += x.compared;
  s.missing += x.missing;
  s.sumAbs += x.meanAbsDelta * x.compared;
  s.sumK3 += x.k3 * x.compared;
  s.outside += x.outside;
  if (x.maxAt >= 0 && (s.maxAt < 0 || x.maxAbsDelta > s.maxAbs)) {
    s.maxAbs = x.maxAbsDelta;
    s.maxRow = row;
    s.maxAt = x.maxAt;
  }
}

function rowOf(knob: RowName, s: Sums): SampleRow {
  if (s.ran === 0) return { knob, status: "unchecked", unchecked: s.unchecked };
  const mean = (x: number) => (s.compared === 0 ? 0 : x / s.compared);
  return {
    knob,
    status: "ran",
    rows: s.ran,
    unchecked: s.unchecked,
    compared: s.compared,
    missing: s.missing,
    meanAbsDelta: mean(s.sumAbs),
    maxAbsDelta: s.maxAbs,
    maxRow: s.maxRow,
    maxAt: s.maxAt,
    k3: mean(s.sumK3),
    outside: s.outside,
    fractionOutside: mean(s.outside),
  };
}

/**
 * The table of a sample: per knob (in the order the first table lists them), the statistics of
 * every row's table pooled over their compared tokens (docs/bisect.md#a-sample-of-rows).
 */
export function sampleTable(tables: readonly SampledTable[]): SampleRow[] {
  const order: RowName[] = [];
  const sums = new Map<RowName, Sums>();
  for (const { row, table } of tables) {
    for (const r of table) {
      let s = sums.get(r.knob);
      if (s === undefined) {
        s = {
          ...{ ran: 0, compared: 0, missing: 0, sumAbs: 0, sumK3: 0, outside: 0 },
          ...{ maxAbs: 0, maxRow: -1, maxAt: -1, unchecked: [] },
        };
        sums.set(r.knob, s);
        order.push(r.knob);
      }
      add(s, row, r);
    }
  }
  return order.map((knob) => rowOf(knob, sums.get(knob) as Sums));
}

const SAMPLE_KEYS = [
  "rows",
  "compared",
  "missing",
  "meanAbsDelta",
  "maxAbsDelta",
  "maxRow",
  "maxAt",
  "k3",
  "outside",
] as const;

/** Where two sample tables disagree (each statistic within `tolerance`); empty when they agree. */
export function sampleDifferences(
  recorded: readonly SampleRow[],
  rerun: readonly SampleRow[],
  tolerance = 1e-9,
): string[] {
  const out: string[] = [];
  for (const r of recorded) {
    const again = rerun.find((x) => x.knob === r.knob);
    if (again === undefined) out.push(`${r.knob}: not in the rerun`);
    else if (r.status !== again.status || r.unchecked.length !== again.unchecked.length)
      out.push(
        `${r.knob}: unchecked on ${r.unchecked.length} row(s) in the bundle, ${again.unchecked.length} now`,
      );
    else if (r.status === "ran" && again.status === "ran")
      for (const key of SAMPLE_KEYS)
        if (!(Math.abs(r[key] - again[key]) <= tolerance))
          out.push(`${r.knob}: ${key} ${r[key]} in the bundle, ${again[key]} now`);
  }
  for (const x of rerun)
    if (!recorded.some((r) => r.knob === x.knob)) out.push(`${x.knob}: not in the bundle`);
  return out;
}

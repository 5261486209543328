import type { Decomposition, DecompositionSummary, RowVerdict } from "./decomposition";
import { positionBucket, positionBucketStart } from "./mismatchCharts";

/*
 * The decomposition file-wide (docs/mismatch.md "Decomposition"): rows counted by verdict, and
 * over the tokens whose terms are known the sums of |temperature|, |support| and |residual| in
 * total and by position bucket (the half octaves of the mismatch charts), for the stacked lanes.
 * Sums merge by addition, so a scan in ranges gives the counts of one scan.
 */

/** One position bucket's known tokens and their summed |terms|. */
export interface DecompositionBucket {
  readonly start: number;
  readonly end: number;
  known: number;
  sumAbsTemperature: number;
  sumAbsSupport: number;
  sumAbsResidual: number;
}

export interface DecompositionCharts {
  /** Rows by verdict. */
  readonly rows: Record<RowVerdict, number>;
  compared: number;
  known: number;
  approximate: number;
  unknownTemperature: number;
  unknownSupport: number;
  /** Known tokens with exp(δ), resp. exp(residual), outside [0.9, 1.1]. */
  outsideDelta: number;
  outsideResidual: number;
  sumAbsDelta: number;
  sumAbsTemperature: number;
  sumAbsSupport: number;
  sumAbsResidual: number;
  readonly byPosition: DecompositionBucket[];
}

/** What the file table shows per row: the verdict and the mean |terms|. */
export interface RowDecomposition {
  readonly verdict: RowVerdict;
  readonly compared: number;
  readonly known: number;
  readonly approximate: number;
  readonly meanAbsTemperature: number;
  readonly meanAbsSupport: number;
  readonly meanAbsResidual: number;
}

/** The counts a row's summary adds to the charts; charts add them to each other too. */
const COUNTS = [
  "compared",
  "known",
  "approximate",
  "unknownTemperature",
  "unknownSupport",
  "outsideDelta",
  "outsideResidual",
] as const;
/** The sums of |terms| over the known tokens, in the charts and in each bucket. */
const SUMS = ["sumAbsDelta", "sumAbsTemperature", "sumAbsSupport", "sumAbsResidual"] as const;
const BUCKET_SUMS = ["known", "sumAbsTemperature", "sumAbsSupport", "sumAbsResidual"] as const;
const VERDICTS = ["none", "spurious", "real", "unchecked"] as const satisfies readonly RowVerdict[];

type Counts = Pick<DecompositionSummary, (typeof COUNTS)[number]>;

export function emptyDecompositionCharts(): DecompositionCharts {
  return {
    rows: { none: 0, spurious: 0, real: 0, unchecked: 0 },
    compared: 0,
    known: 0,
    approximate: 0,
    unknownTemperature: 0,
    unknownSupport: 0,
    outsideDelta: 0,
    outsideResidual: 0,
    sumAbsDelta: 0,
    sumAbsTemperature: 0,
    sumAbsSupport: 0,
    sumAbsResidual: 0,
    byPosition: [],
  };
}

function addCounts(charts: DecompositionCharts, verdict: RowVerdict, counts: Counts): void {
  charts.rows[verdict]++;
  for (const f of COUNTS) charts[f] += counts[f];
}

function bucketAt(buckets: DecompositionBucket[], b: number): DecompositionBucket {
  while (buckets.length <= b) {
    const i = buckets.length;
    buckets.push({
      start: positionBucketStart(i),
      end: positionBucketStart(i + 1),
      known: 0,
      sumAbsTemperature: 0,
      sumAbsSupport: 0,
      sumAbsResidual: 0,
    });
  }
  return buckets[b] as DecompositionBucket;
}

/** The row's summary as the table shows it. */
export function rowDecomposition(s: DecompositionSummary): RowDecomposition {
  return {
    verdict: s.verdict,
    compared: s.compared,
    known: s.known,
    approximate: s.approximate,
    meanAbsTemperature: s.meanAbsTemperature,
    meanAbsSupport: s.meanAbsSupport,
    meanAbsResidual: s.meanAbsResidual,
  };
}

/** One trajectory's decomposition into the charts; its row summary back. */
export function addDecomposition(charts: DecompositionCharts, d: Decomposition): RowDecomposition {
  const s = d.summary;
  addCounts(charts, s.verdict, s);
  const { temperature, support, residual } = d;
  for (let k = 0; k < residual.length; k++) {
    const res = residual[k] as number;
    if (Number.isNaN(res)) continue;
    const t = Math.abs(temperature[k] as number);
    const sp = Math.abs(support[k] as number);
    const delta = (temperature[k] as number) + (support[k] as number) + res;
    charts.sumAbsDelta += Math.abs(delta);
    charts.sumAbsTemperature += t;
    charts.sumAbsSupport += sp;
    charts.sumAbsResidual += Math.abs(res);
    const bucket = bucketAt(charts.byPosition, positionBucket(k));
    bucket.known++;
    bucket.sumAbsTemperature += t;
    bucket.sumAbsSupport += sp;
    bucket.sumAbsResidual += Math.abs(res);
  }
  return rowDecomposition(s);
}

/**
 * A row whose every temperature term is unknown, counted without walking its tokens: compared
 * without a trajectory (the lanes read straight from the line: nothing says how they were
 * produced), or a lane without a temperature. The row is unchecked.
 */
export function addUnknownRow(
  charts: DecompositionCharts,
  compared: number,
  unknownSupport = compared,
): RowDecomposition {
  // Nothing known about any token (or no token compared at all): nothing was judged.
  const verdict: RowVerdict = "unchecked";
  const counts = { compared, known: 0, approximate: 0, outsideDelta: 0, outsideResidual: 0 };
  addCounts(charts, verdict, { ...counts, unknownTemperature: compared, unknownSupport });
  return {
    verdict,
    compared,
    known: 0,
    approximate: 0,
    meanAbsTemperature: Number.NaN,
    meanAbsSupport: Number.NaN,
    meanAbsResidual: Number.NaN,
  };
}

/** `from` added into `into`. */
export function mergeDecompositionCharts(
  into: DecompositionCharts,
  from: DecompositionCharts,
): void {
  for (const v of VERDICTS) into.rows[v] += from.rows[v];
  for (const f of [...COUNTS, ...SUMS]) into[f] += from[f];
  from.byPosition.forEach((b, i) => {
    const to = bucketAt(into.byPosition, i);
    for (const f of BUCKET_SUMS) to[f] += b[f];
  });
}

import { memo } from "react";
import type {
  DecompositionBucket,
  DecompositionCharts,
} from "../../core/mismatch/decompositionCharts";
import {
  type MismatchCharts as Charts,
  HIST_BINS,
  HIST_SPAN,
  HIST_WIDTH,
  type MismatchBucket,
  type MismatchToken,
} from "../../core/mismatch/fileMismatch";
import { type LaneLabels, laneLabels } from "../../core/mismatch/laneLabels";
import styles from "./MismatchCharts.module.css";

/*
 * The file-wide mismatch charts, drawn as plain SVG in a fixed coordinate system (scaled to the
 * panel's width): histogram of r on a log axis with the 2× and 5× bands, rollout vs trainer
 * probability for the sample, and |δ| by probability bucket and by position.
 */

const W = 320;
const H = 160;
const PAD = { left: 34, right: 8, top: 8, bottom: 24 };
const PLOT_W = W - PAD.left - PAD.right;
const PLOT_H = H - PAD.top - PAD.bottom;
const LOG2 = Math.log10(2);
const LOG5 = Math.log10(5);

function Figure({
  title,
  note,
  children,
  testId,
}: {
  readonly title: string;
  readonly note?: string;
  readonly children: React.ReactNode;
  readonly testId: string;
}) {
  return (
    <figure className={styles.chart} aria-label={title} data-testid={testId}>
      <figcaption>
        <strong>{title}</strong>
        {note && <span className={styles.note}>{note}</span>}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        {children}
      </svg>
    </figure>
  );
}

const xOfLog = (x: number) => PAD.left + ((x + HIST_SPAN) / (2 * HIST_SPAN)) * PLOT_W;

const R_TICKS: readonly [number, string][] = [
  [1 / 30, "1/30"],
  [0.1, "1/10"],
  [0.2, "1/5"],
  [0.5, "1/2"],
  [1, "1"],
  [2, "2"],
  [5, "5"],
  [10, "10"],
  [30, "30"],
];

const percent = (n: number, of: number) =>
  of === 0 ? "0%" : `${((100 * n) / of).toFixed(n > 0 && n / of < 0.001 ? 3 : 1)}%`;

/** Counts of log10 r, bars on a log count axis; the 2× and 5× bands shaded. */
function RHistogram({ charts, lanes }: { readonly charts: Charts; readonly lanes: LaneLabels }) {
  const max = Math.max(1, ...charts.histogram, charts.under, charts.over);
  const yOf = (count: number) =>
    PAD.top + PLOT_H - (count > 0 ? (Math.log10(1 + count) / Math.log10(1 + max)) * PLOT_H : 0);
  const band = (from: number, to: number, className: string | undefined) => (
    <rect
      className={className}
      x={xOfLog(from)}
      width={xOfLog(to) - xOfLog(from)}
      y={PAD.top}
      height={PLOT_H}
    />
  );
  const binW = PLOT_W / HIST_BINS;
  return (
    <Figure
      title={`r = π_${lanes.a} / π_${lanes.b} (log scale)`}
      note={`outside 2×: ${percent(charts.beyond2x, charts.compared)} · outside 5×: ${percent(charts.beyond5x, charts.compared)}`}
      testId="mismatch-histogram"
    >
      {band(-HIST_SPAN, -LOG5, styles.band5)}
      {band(-LOG5, -LOG2, styles.band2)}
      {band(LOG2, LOG5, styles.band2)}
      {band(LOG5, HIST_SPAN, styles.band5)}
      {charts.histogram.map((count, i) =>
        count > 0 ? (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: bins are fixed positions
            key={i}
            className={styles.bar}
            x={PAD.left + i * binW}
            width={Math.max(binW - 0.3, 0.8)}
            y={yOf(count)}
            height={PAD.top + PLOT_H - yOf(count)}
          >
            <title>
              {`r ${(10 ** (-HIST_SPAN + i * HIST_WIDTH)).toPrecision(3)}–${(10 ** (-HIST_SPAN + (i + 1) * HIST_WIDTH)).toPrecision(3)}: ${count} tokens`}
            </title>
          </rect>
        ) : null,
      )}
      {R_TICKS.map(([r, label]) => (
        <g key={label}>
          <line
            className={styles.tick}
            x1={xOfLog(Math.log10(r))}
            x2={xOfLog(Math.log10(r))}
            y1={PAD.top + PLOT_H}
            y2={PAD.top + PLOT_H + 3}
          />
          <text className={styles.axis} x={xOfLog(Math.log10(r))} y={H - 10} textAnchor="middle">
            {label}
          </text>
        </g>
      ))}
      <text className={styles.axis} x={PAD.left - 4} y={PAD.top + 8} textAnchor="end">
        {max}
      </text>
      <text className={styles.axis} x={PAD.left - 4} y={PAD.top + PLOT_H} textAnchor="end">
        0
      </text>
      {charts.under > 0 && (
        <text className={styles.edge} x={PAD.left + 2} y={PAD.top + 10}>
          {`◀ ${charts.under}`}
        </text>
      )}
      {charts.over > 0 && (
        <text className={styles.edge} x={W - PAD.right - 2} y={PAD.top + 10} textAnchor="end">
          {`${charts.over} ▶`}
        </text>
      )}
    </Figure>
  );
}

/** Lane b's probability (x) against lane a's (y): the sample, then the worst tokens. */
function ProbabilityScatter({
  charts,
  lanes,
}: {
  readonly charts: Charts;
  readonly lanes: LaneLabels;
}) {
  const size = PLOT_H;
  const left = PAD.left + (PLOT_W - size) / 2;
  const xOf = (p: number) => left + p * size;
  const yOf = (p: number) => PAD.top + size - p * size;
  const dot = (t: MismatchToken, className: string | undefined, r: number) => (
    <circle
      key={`${className}.${t.row}.${t.token}`}
      className={className}
      cx={xOf(Math.exp(t.b))}
      cy={yOf(Math.exp(t.a))}
      r={r}
    />
  );
  const far = (t: MismatchToken) => Math.abs(t.delta) > Math.LN2;
  return (
    <Figure
      title={`${lanes.a} vs ${lanes.b} probability`}
      note={`${charts.scatter.length} sampled tokens · worst ${charts.worst.length} ringed`}
      testId="mismatch-scatter"
    >
      <rect className={styles.frame} x={left} y={PAD.top} width={size} height={size} />
      <line className={styles.diagonal} x1={xOf(0)} y1={yOf(0)} x2={xOf(1)} y2={yOf(1)} />
      {charts.scatter.map((t) => dot(t, far(t) ? styles.dotFar : styles.dot, 1.4))}
      {charts.worst.map((t) => dot(t, styles.ring, 3))}
      {[0, 0.5, 1].map((p) => (
        <g key={p}>
          <text className={styles.axis} x={xOf(p)} y={H - 10} textAnchor="middle">
            {p}
          </text>
          <text className={styles.axis} x={left - 4} y={yOf(p) + 3} textAnchor="end">
            {p}
          </text>
        </g>
      ))}
      <text className={styles.axis} x={left + size + 6} y={PAD.top + size}>
        p {lanes.b} →
      </text>
      <text className={styles.axis} x={left - 6} y={PAD.top + size / 4} textAnchor="end">
        p {lanes.a} ↑
      </text>
    </Figure>
  );
}

/** The decades a log axis from `lo` to `hi` shows. */
function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

/**
 * Mean |δ| per bucket as bars, max |δ| as a tick, on a log axis (means are often orders of
 * magnitude below the max); the count in each bar's tooltip.
 */
function BucketChart({
  title,
  buckets,
  label,
  testId,
}: {
  readonly title: string;
  readonly buckets: readonly MismatchBucket[];
  readonly label: (b: MismatchBucket) => string;
  readonly testId: string;
}) {
  const mean = (b: MismatchBucket) => (b.count === 0 ? 0 : b.sumAbsDelta / b.count);
  const positive = buckets.flatMap((b) => [mean(b), b.maxAbsDelta]).filter((v) => v > 0);
  const hi = 10 ** Math.ceil(Math.log10(Math.max(1e-6, ...positive)));
  const lo = Math.min(hi / 100, 10 ** Math.floor(Math.log10(Math.min(hi / 10, ...positive))));
  const step = PLOT_W / Math.max(1, buckets.length);
  const yOf = (v: number) =>
    PAD.top + PLOT_H - (Math.log10(Math.max(v, lo) / lo) / Math.log10(hi / lo)) * PLOT_H;
  const every = Math.max(1, Math.ceil(buckets.length / 8));
  return (
    <Figure title={title} note="bar: mean |δ| · tick: max |δ| (log scale)" testId={testId}>
      {decades(lo, hi).map((v) => (
        <g key={v}>
          <line className={styles.grid} x1={PAD.left} x2={W - PAD.right} y1={yOf(v)} y2={yOf(v)} />
          <text className={styles.axis} x={PAD.left - 4} y={yOf(v) + 3} textAnchor="end">
            {v >= 0.01 ? String(v) : v.toExponential(0)}
          </text>
        </g>
      ))}
      {buckets.map((b, i) => {
        const x = PAD.left + i * step;
        return (
          <g key={`${b.start}`}>
            {b.count > 0 && (
              <>
                <rect
                  className={styles.bar}
                  x={x + step * 0.1}
                  width={step * 0.8}
                  y={yOf(mean(b))}
                  height={PAD.top + PLOT_H - yOf(mean(b))}
                >
                  <title>
                    {`${label(b)}: ${b.count} tokens, mean |δ| ${mean(b).toPrecision(3)}, max ${b.maxAbsDelta.toPrecision(3)}, outside 2× ${b.beyond2x}`}
                  </title>
                </rect>
                <line
                  className={styles.max}
                  x1={x + step * 0.1}
                  x2={x + step * 0.9}
                  y1={yOf(b.maxAbsDelta)}
                  y2={yOf(b.maxAbsDelta)}
                />
              </>
            )}
            {i % every === 0 && (
              <text className={styles.axis} x={x + step / 2} y={H - 10} textAnchor="middle">
                {label(b).split("–")[0]}
              </text>
            )}
          </g>
        );
      })}
    </Figure>
  );
}

const TERMS = [
  ["sumAbsTemperature", "temperature", "termTemperature"],
  ["sumAbsSupport", "support", "termSupport"],
  ["sumAbsResidual", "residual", "termResidual"],
] as const;

/** The legend's x offset of term `i` (SVG units): each label's own width apart, never overlapping. */
const legendOffset = (i: number) =>
  TERMS.slice(0, i).reduce((x, [, label]) => x + 16 + label.length * 5.5, 0);

/** Said in the plot instead of an empty axis when no compared token has all three terms known. */
function NoTermKnown({ unchecked }: { readonly unchecked: number }) {
  return (
    <text className={styles.empty} x={W / 2} y={H / 2} textAnchor="middle">
      <tspan x={W / 2}>nothing to draw: no token has its terms known</tspan>
      <tspan x={W / 2} dy="1.3em">
        (a lane's temperature or kept set is not recorded);
      </tspan>
      <tspan x={W / 2} dy="1.3em">
        {unchecked.toLocaleString("en-US")} {unchecked === 1 ? "row" : "rows"} unchecked
      </tspan>
    </text>
  );
}

/**
 * Where the file's mismatch comes from (docs/mismatch.md "Decomposition"): mean |temperature|,
 * |support| and |residual| stacked per position bucket over the tokens whose terms are known,
 * with the rows by verdict and the tokens whose terms are unknown.
 */
function DecompositionChart({ d }: { readonly d: DecompositionCharts }) {
  const mean = (b: DecompositionBucket, key: (typeof TERMS)[number][0]) =>
    b.known === 0 ? 0 : b[key] / b.known;
  const total = (b: DecompositionBucket) => TERMS.reduce((sum, [key]) => sum + mean(b, key), 0);
  const hi = Math.max(1e-9, ...d.byPosition.map(total));
  const step = PLOT_W / Math.max(1, d.byPosition.length);
  const yOf = (v: number) => PAD.top + PLOT_H - (v / hi) * PLOT_H;
  const every = Math.max(1, Math.ceil(d.byPosition.length / 8));
  const r = d.rows;
  const note = `rows: ${r.spurious} spurious · ${r.real} real · ${r.none} within [0.9, 1.1] · ${r.unchecked} unchecked; ${d.known} of ${d.compared} tokens known (${d.approximate} approximate)`;
  return (
    <Figure title="where |δ| comes from, by position" note={note} testId="mismatch-decomposition">
      {d.known === 0 && <NoTermKnown unchecked={r.unchecked} />}
      {d.known > 0 && (
        <text className={styles.axis} x={PAD.left - 4} y={yOf(hi) + 3} textAnchor="end">
          {hi.toPrecision(2)}
        </text>
      )}
      {d.known > 0 &&
        TERMS.map(([, label, cls], i) => (
          <text
            key={label}
            className={`${styles.legend} ${styles[cls]}`}
            x={PAD.left + 4 + legendOffset(i)}
            y={PAD.top + 8}
          >
            ■ {label}
          </text>
        ))}
      {d.byPosition.map((b, i) => {
        const x = PAD.left + i * step;
        let base = 0;
        return (
          <g key={`${b.start}`} data-known={b.known}>
            {b.known > 0 &&
              TERMS.map(([key, label, cls]) => {
                const v = mean(b, key);
                const y = yOf(base + v);
                const height = yOf(base) - y;
                base += v;
                return (
                  <rect
                    key={key}
                    className={styles[cls]}
                    x={x + step * 0.1}
                    width={step * 0.8}
                    y={y}
                    height={height}
                  >
                    <title>{`${b.start}–${b.end - 1}: ${b.known} tokens, mean |${label}| ${v.toPrecision(3)}`}</title>
                  </rect>
                );
              })}
            {i % every === 0 && (
              <text className={styles.axis} x={x + step / 2} y={H - 10} textAnchor="middle">
                {b.start}
              </text>
            )}
          </g>
        );
      })}
    </Figure>
  );
}

/** The file-wide charts. Memoized: the page re-renders on every scan update. */
export const MismatchCharts = memo(function MismatchCharts({
  charts,
}: {
  readonly charts: Charts;
}) {
  const lanes = laneLabels(charts.lanePairs);
  return (
    <div className={styles.charts}>
      {lanes.mixed !== undefined && (
        <p className={styles.mixed} data-testid="mismatch-lanes-mixed">
          δ = lane a − lane b; {lanes.mixed}
        </p>
      )}
      <RHistogram charts={charts} lanes={lanes} />
      <ProbabilityScatter charts={charts} lanes={lanes} />
      <BucketChart
        title={`|δ| by ${lanes.b} probability`}
        buckets={charts.byProbability}
        label={(b) => `${b.start.toFixed(1)}–${b.end.toFixed(1)}`}
        testId="mismatch-by-probability"
      />
      <BucketChart
        title="|δ| by position (token index)"
        buckets={charts.byPosition}
        label={(b) => `${b.start}–${b.end - 1}`}
        testId="mismatch-by-position"
      />
      {charts.decomposition && <DecompositionChart d={charts.decomposition} />}
    </div>
  );
});

import { memo, useMemo } from "react";
import { type Decomposition, TERM } from "../../core/mismatch/decomposition";
import { envelope } from "../../core/series/envelope";
import styles from "./DecompositionLanes.module.css";

const WIDTH = 600;
const LANE = 34;
const BUCKETS = 300;

const LANES = [
  { key: "temperature", label: "temperature", unknown: TERM.temperatureUnknown },
  { key: "support", label: "support", unknown: TERM.supportUnknown },
  { key: "residual", label: "residual", unknown: TERM.temperatureUnknown | TERM.supportUnknown },
] as const;

const VERDICT_TEXT = {
  none: "no token outside [0.9, 1.1]",
  spurious: "spurious: temperature and support explain it",
  real: "real: the residual keeps it",
  unchecked: "unchecked: a term is unknown on some tokens",
} as const;

interface DecompositionLanesProps {
  readonly decomposition: Decomposition;
  readonly selected: number | undefined;
  readonly onPick: (token: number) => void;
}

function format(x: number): string {
  if (Number.isNaN(x)) return "—";
  if (x === 0) return "0";
  return Math.abs(x) < 1e-3 ? x.toExponential(2) : x.toFixed(4);
}

/** Tokens where a lane's term is unknown, as spans [start, end) of consecutive tokens. */
function unknownSpans(status: Uint8Array, bits: number): [number, number][] {
  const spans: [number, number][] = [];
  let start = -1;
  for (let k = 0; k <= status.length; k++) {
    const s = status[k] ?? 0;
    const isUnknown = (s & TERM.compared) !== 0 && (s & bits) !== 0;
    if (isUnknown && start < 0) start = k;
    if (!isUnknown && start >= 0) {
      spans.push([start, k]);
      start = -1;
    }
  }
  return spans;
}

/** max |term| over the three lanes (NaN skipped), at least 1e-9. */
function largestTerm(d: Decomposition): number {
  let max = 1e-9;
  for (const values of [d.temperature, d.support, d.residual]) {
    for (const v of values) if (Math.abs(v) > max) max = Math.abs(v);
  }
  return max;
}

function Lane({
  values,
  status,
  unknownBits,
  index,
  n,
  extent,
}: {
  readonly values: Float64Array;
  readonly status: Uint8Array;
  readonly unknownBits: number;
  readonly index: number;
  readonly n: number;
  /** The largest |term| of the three lanes: one scale, so their sizes compare. */
  readonly extent: number;
}) {
  const buckets = useMemo(() => envelope(values, BUCKETS), [values]);
  const spans = useMemo(() => unknownSpans(status, unknownBits), [status, unknownBits]);
  const top = index * LANE;
  const mid = top + LANE / 2;
  const x = (token: number) => (token / Math.max(1, n)) * WIDTH;
  const y = (v: number) => mid - (v / extent) * (LANE / 2 - 2);
  return (
    <g data-lane={LANES[index]?.key}>
      <line x1={0} x2={WIDTH} y1={mid} y2={mid} className={styles.zero} />
      {spans.map(([s, e]) => (
        <rect
          key={s}
          x={x(s)}
          width={Math.max(0.5, x(e) - x(s))}
          y={top + 1}
          height={LANE - 2}
          className={styles.unknown}
        />
      ))}
      {buckets.map((b) => (
        <rect
          key={b.start}
          x={x(b.start)}
          width={Math.max(0.6, x(b.end) - x(b.start))}
          y={y(Math.max(0, b.max))}
          height={Math.max(0.6, y(Math.min(0, b.min)) - y(Math.max(0, b.max)))}
          className={styles[LANES[index]?.key ?? "residual"]}
        />
      ))}
    </g>
  );
}

/**
 * Where the mismatch comes from (docs/mismatch.md "Decomposition"): δ split per token into the
 * temperature, truncated-support and residual terms, as three stacked lanes along the sequence on
 * one scale (grey where a term is unknown), with the row's verdict and mean |terms|; click to jump.
 */
export const DecompositionLanes = memo(function DecompositionLanes({
  decomposition,
  selected,
  onPick,
}: DecompositionLanesProps) {
  const { summary } = decomposition;
  const n = decomposition.residual.length;
  const extent = useMemo(() => largestTerm(decomposition), [decomposition]);
  const height = LANE * LANES.length;
  return (
    <figure className={styles.figure} data-testid="decomposition">
      <figcaption>
        <span data-testid="decomposition-verdict" data-verdict={summary.verdict}>
          {VERDICT_TEXT[summary.verdict]}
        </span>{" "}
        <span className={styles.muted} data-testid="decomposition-means">
          mean |temperature| {format(summary.meanAbsTemperature)} · |support|{" "}
          {format(summary.meanAbsSupport)} · |residual| {format(summary.meanAbsResidual)} ·{" "}
          {summary.known}/{summary.compared} known
          {summary.approximate > 0 ? `, ${summary.approximate} approximate` : ""}
        </span>
      </figcaption>
      <div className={styles.lanes}>
        <div className={styles.labels}>
          {LANES.map((l) => (
            <span key={l.key} style={{ height: LANE }}>
              {l.label}
            </span>
          ))}
        </div>
        {/* biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; every token is reachable from the keyboard in the token list */}
        <svg
          viewBox={`0 0 ${WIDTH} ${height}`}
          preserveAspectRatio="none"
          role="img"
          aria-label="temperature, support and residual terms along the sequence"
          style={{ height }}
          onClick={(event) => {
            const rect = event.currentTarget.getBoundingClientRect();
            if (rect.width <= 0 || n === 0) return;
            const f = (event.clientX - rect.left) / rect.width;
            onPick(Math.min(n - 1, Math.max(0, Math.floor(f * n))));
          }}
        >
          {LANES.map((l, i) => (
            <Lane
              key={l.key}
              values={decomposition[l.key]}
              status={decomposition.status}
              unknownBits={l.unknown}
              index={i}
              n={n}
              extent={extent}
            />
          ))}
          {selected !== undefined && (
            <line
              x1={(selected / Math.max(1, n)) * WIDTH}
              x2={(selected / Math.max(1, n)) * WIDTH}
              y1={0}
              y2={height}
              className={styles.cursor}
            />
          )}
        </svg>
      </div>
    </figure>
  );
});

import { memo, useMemo } from "react";
import { envelope } from "../../core/series/envelope";
import styles from "./MismatchPanel.module.css";

const WIDTH = 600;
const HEIGHT = 90;
const BUCKETS = 300;

interface CumDeltaChartProps {
  /** Σδ of the compared tokens up to each token (token-index space). */
  readonly cumDelta: Float64Array;
  readonly selected: number | undefined;
  readonly onPick: (token: number) => void;
}

/**
 * The running Σδ along the sequence (the log of the sequence-level ratio so far): a min–max band
 * per span of tokens, a zero line and the selection; click to jump there.
 */
export const CumDeltaChart = memo(function CumDeltaChart({
  cumDelta,
  selected,
  onPick,
}: CumDeltaChartProps) {
  const n = cumDelta.length;
  const buckets = useMemo(() => envelope(cumDelta, BUCKETS), [cumDelta]);
  const lo = Math.min(0, ...buckets.map((b) => b.min));
  const hi = Math.max(0, ...buckets.map((b) => b.max));
  const span = hi - lo || 1;
  const x = (token: number) => (token / Math.max(1, n)) * WIDTH;
  const y = (v: number) => HEIGHT - 4 - ((v - lo) / span) * (HEIGHT - 8);
  const top = buckets.map((b) => `${x(b.start).toFixed(1)},${y(b.max).toFixed(1)}`);
  const bottom = buckets.map((b) => `${x(b.end).toFixed(1)},${y(b.min).toFixed(1)}`).reverse();
  return (
    <figure className={styles.chart}>
      <figcaption>
        running Σδ{" "}
        <span className={styles.muted}>
          ({format(lo)} … {format(hi)})
        </span>
      </figcaption>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; every token is reachable from the keyboard in the token list */}
      <svg
        data-testid="cum-delta-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label="running sum of the log-ratio along the sequence"
        onClick={(event) => {
          const rect = event.currentTarget.getBoundingClientRect();
          if (rect.width <= 0 || n === 0) return;
          const f = (event.clientX - rect.left) / rect.width;
          onPick(Math.min(n - 1, Math.max(0, Math.floor(f * n))));
        }}
      >
        <line x1={0} x2={WIDTH} y1={y(0)} y2={y(0)} className={styles.zero} />
        {buckets.length > 0 && (
          <polygon points={[...top, ...bottom].join(" ")} className={styles.band} />
        )}
        {selected !== undefined && (
          <line x1={x(selected)} x2={x(selected)} y1={0} y2={HEIGHT} className={styles.cursor} />
        )}
      </svg>
    </figure>
  );
});

function format(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
}

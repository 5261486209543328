import { heatGradient, heatTicks } from "../../core/layout/heatScale";
import { mismatchGradient, mismatchTicks, VERDICT_COLORS } from "../../core/mismatch/mismatchScale";
import styles from "./Legend.module.css";

/** The mark of a tool call's markup that failed to parse (in either mode). */
function FailedCallKey() {
  return (
    <span className={styles.item}>
      <span className={styles.failedCall}>&lt;tool_call&gt;</span>
      tool call that failed to parse
    </span>
  );
}

/** The diverging δ scale of mismatch mode, with δ and r at each tick, and the verdict marks. */
function MismatchLegend({
  extent,
  lanes,
}: {
  readonly extent: number;
  readonly lanes: readonly [string, string] | undefined;
}) {
  const [a, b] = lanes ?? ["a", "b"];
  return (
    <>
      <span>
        δ = log p<sub>{a}</sub> − log p<sub>{b}</sub>
      </span>
      <span className={`${styles.scale} ${styles.twoRows}`} data-testid="mismatch-scale">
        <span className={styles.gradient} style={{ background: mismatchGradient }} />
        {mismatchTicks(extent).map((tick) => (
          <span
            key={tick.at}
            className={styles.tick}
            style={{ left: `${(tick.at * 100).toFixed(2)}%` }}
          >
            {tick.label}
            <br />
            {tick.ratio}
          </span>
        ))}
      </span>
      <span className={styles.item}>
        <span className={`${styles.swatch} ${styles.notRecorded}`} />a lane missing
      </span>
      <span className={styles.item}>
        <span
          className={styles.swatch}
          style={{ boxShadow: `inset 0 -3px 0 ${VERDICT_COLORS.clipped}` }}
        />
        clipped
      </span>
      <span className={styles.item}>
        <span
          className={styles.swatch}
          style={{ boxShadow: `inset 0 -3px 0 ${VERDICT_COLORS.masked}` }}
        />
        masked
      </span>
    </>
  );
}

/** Colour key: the three segment kinds, the probability scale (heatmap) or the δ scale (mismatch). */
export function Legend({
  mode,
  heatFloor,
  mismatchExtent,
  lanes,
  hasFailedCalls,
}: {
  readonly mode: "segments" | "heatmap" | "mismatch";
  readonly heatFloor: number;
  readonly mismatchExtent: number;
  readonly lanes: readonly [string, string] | undefined;
  readonly hasFailedCalls: boolean;
}) {
  if (mode === "mismatch") {
    return (
      <div className={styles.legend} data-testid="legend">
        <MismatchLegend extent={mismatchExtent} lanes={lanes} />
        <span className={styles.item}>
          <span className={`${styles.swatch} ${styles.prompt} ${styles.faded}`} />
          mask 0 (faded)
        </span>
        {hasFailedCalls && <FailedCallKey />}
      </div>
    );
  }
  if (mode === "heatmap") {
    return (
      <div className={styles.legend} data-testid="legend">
        <span>model-token probability (log scale)</span>
        <span className={styles.scale} data-testid="heat-scale">
          <span className={styles.gradient} style={{ background: heatGradient }} />
          {heatTicks(heatFloor).map((tick) => (
            <span
              key={tick.label}
              className={styles.tick}
              style={{ left: `${(tick.at * 100).toFixed(2)}%` }}
            >
              {tick.at === 0 ? `≤${tick.label}` : tick.label}
            </span>
          ))}
        </span>
        <span className={styles.item}>
          <span className={`${styles.swatch} ${styles.notRecorded}`} />
          not recorded
        </span>
        <span className={styles.item}>
          <span className={`${styles.swatch} ${styles.prompt} ${styles.faded}`} />
          mask 0 (faded)
        </span>
        {hasFailedCalls && <FailedCallKey />}
      </div>
    );
  }
  return (
    <div className={styles.legend} data-testid="legend">
      <span className={styles.item}>
        <span className={`${styles.swatch} ${styles.prompt}`} />
        prompt (mask 0)
      </span>
      <span className={styles.item}>
        <span className={`${styles.swatch} ${styles.model}`} />
        model output (mask 1)
      </span>
      <span className={styles.item}>
        <span className={`${styles.swatch} ${styles.tool}`} />
        tool result (mask 0)
      </span>
      <span className={styles.item}>
        <span className={`${styles.swatch} ${styles.chip}`} />
        special token
      </span>
      {hasFailedCalls && <FailedCallKey />}
    </div>
  );
}

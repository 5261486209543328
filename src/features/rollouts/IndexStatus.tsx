import type { RolloutFileState } from "../../workers/rolloutFileClient";
import { formatBytes } from "./formatBytes";
import styles from "./IndexStatus.module.css";

export interface IndexStatusProps {
  readonly state: RolloutFileState;
  readonly shown: number;
  readonly onTogglePause: () => void;
}

/** File name, format, progress bar with bytes / lines / rate, and the live-tail toggle. */
export function IndexStatus({ state, shown, onTogglePause }: IndexStatusProps) {
  const fraction = state.totalBytes > 0 ? Math.min(1, state.bytes / state.totalBytes) : 1;
  const isFailed = state.failure !== undefined;
  return (
    <div className={styles.status} role="status" aria-live="polite">
      <span className={styles.name}>{state.name}</span>
      {state.format && <span className={styles.format}>{state.format}</span>}
      <span
        className={styles.bar}
        role="progressbar"
        aria-label="indexing"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(fraction * 100)}
      >
        <span
          className={`${styles.fill} ${state.caughtUp ? styles.done : ""}`}
          style={{ display: "block", width: `${fraction * 100}%` }}
        />
      </span>
      <span>
        {formatBytes(state.bytes)} / {formatBytes(state.totalBytes)}
      </span>
      <span data-testid="line-count">
        {state.lines.toLocaleString("en-US")} {state.unit}
        {state.lines === 1 ? "" : "s"}
      </span>
      <span data-testid="row-count">
        {shown.toLocaleString("en-US")} / {state.rows.length.toLocaleString("en-US")} trajectories
      </span>
      {/* A failure ends the reading: no rate that reads as "still going", nothing to tail. */}
      {isFailed && <span>not read</span>}
      {!isFailed && !state.caughtUp && <span>{formatBytes(state.rate)}/s</span>}
      {!isFailed && state.caughtUp && <span>indexed</span>}
      {!isFailed && state.isTailing && (
        <button type="button" onClick={onTogglePause} aria-pressed={state.isPaused}>
          {state.isPaused ? "▶ resume tail" : "‖ pause tail"}
        </button>
      )}
      {state.failure && <span className={styles.failure}>{state.failure}</span>}
    </div>
  );
}

import { Link } from "react-router";
import type { LiveEpisodeState } from "../../core/trajectory/foldEvents";
import styles from "./LiveRun.module.css";

const STATUS_TEXT = {
  running: "● running",
  completed: "✓ completed",
  truncated: "✂ truncated",
  aborted: "■ aborted",
} as const;

interface RunHeaderProps {
  readonly state: LiveEpisodeState;
  readonly tokens: number;
  readonly finalAnswer: string | undefined;
  readonly isAborting: boolean;
  readonly onAbort: () => void;
}

/** The episode's id, status (with the reason it ended), size, final answer, and Abort. */
export function RunHeader({ state, tokens, finalAnswer, isAborting, onAbort }: RunHeaderProps) {
  const isRunning = state.status === "running";
  return (
    <div className={styles.header}>
      <div className={styles.headerRow}>
        <span className={`${styles.status} ${styles[state.status]}`} data-testid="run-status">
          {STATUS_TEXT[state.status]}
        </span>
        {state.endReason && (
          <span
            // A normal ending reads as plain text; only a cut or an abort is in the cut colour.
            className={state.status === "completed" ? styles.reasonNormal : styles.reason}
            data-testid="run-reason"
          >
            {state.endReason}
          </span>
        )}
        <span className={styles.muted}>
          {tokens.toLocaleString("en-US")} tokens · {state.segments.length} segments
        </span>
        <Link className={styles.muted} to={`/episodes/${state.id}`}>
          {state.id}
        </Link>
        {isRunning && (
          <button type="button" className={styles.abort} onClick={onAbort} disabled={isAborting}>
            ■ Abort
          </button>
        )}
      </div>
      {finalAnswer !== undefined && !isRunning && (
        <div className={styles.answer} data-testid="final-answer">
          <span className={styles.label}>final answer</span> {finalAnswer}
        </div>
      )}
    </div>
  );
}

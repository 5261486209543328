import styles from "./Toolbar.module.css";

interface RescoreControlsProps {
  readonly onRescore: () => void;
  readonly isRescoring: boolean;
  readonly rescoreStatus?: string;
  readonly rescoreError?: string;
  readonly onRescoreAnyway?: () => void;
  readonly onSaveAs?: () => void;
  readonly soloLane?: string;
}

/** Rescore, its outcome, Rescore anyway (after the family check refused) and Save as (docs/mismatch.md). */
export function RescoreControls({
  onRescore,
  isRescoring,
  rescoreStatus,
  rescoreError,
  onRescoreAnyway,
  onSaveAs,
  soloLane,
}: RescoreControlsProps) {
  return (
    <span className={styles.group}>
      <button
        type="button"
        onClick={onRescore}
        disabled={isRescoring}
        title="Score these exact ids with SGLang into a `rescored` lane"
      >
        {isRescoring ? "Rescoring…" : "Rescore"}
      </button>
      {rescoreError !== undefined && (
        <span className={styles.message} data-testid="rescore-error">
          {rescoreError}
        </span>
      )}
      {onRescoreAnyway && (
        <button type="button" onClick={onRescoreAnyway} disabled={isRescoring}>
          Rescore anyway
        </button>
      )}
      {rescoreError === undefined && rescoreStatus !== undefined && (
        <span className={styles.muted} data-testid="rescore-status">
          rescored: {rescoreStatus}
        </span>
      )}
      {onSaveAs && (
        <button
          type="button"
          onClick={onSaveAs}
          title="Download this row with its rescored lane as a new rollout-lens/v1 file; the file it came from is never written"
        >
          Save as…
        </button>
      )}
      {soloLane !== undefined && (
        <span className={styles.muted} data-testid="solo-lane">
          no sampled logprobs: heatmap, chart and low-confidence show {soloLane}
        </span>
      )}
    </span>
  );
}

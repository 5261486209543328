import { memo } from "react";
import { rowStyle } from "./rowMetrics";
import styles from "./SegmentRows.module.css";

interface CutoffRowProps {
  readonly reason: string;
  readonly lastToken: number;
  /** Row placement in CSS pixels (numbers, so memo holds while scrolling). */
  readonly top: number;
  readonly height: number;
}

/** The banner where the episode stopped, naming the reason and the exact last token. */
export const CutoffRow = memo(function CutoffRow({
  reason,
  lastToken,
  top,
  height,
}: CutoffRowProps) {
  return (
    <div className={styles.cutoffRow} style={rowStyle(top, height)}>
      <div className={styles.cutoff} role="note" data-testid="cutoff-marker">
        <span aria-hidden="true">✂</span> Episode cut after token #{lastToken}: {reason}
      </div>
    </div>
  );
});

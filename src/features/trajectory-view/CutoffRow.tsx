import { memo } from "react";
import { revealInvisible } from "../../core/layout/displayPiece";
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
      <div
        className={styles.cutoff}
        role="note"
        data-testid="cutoff-marker"
        title={`Episode cut after token #${lastToken}: ${revealInvisible(reason)}`}
      >
        <span aria-hidden="true">✂</span> Episode cut after token #{lastToken}:{" "}
        {revealInvisible(reason)}
      </div>
    </div>
  );
});

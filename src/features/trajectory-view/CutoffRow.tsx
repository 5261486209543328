import { type CSSProperties, memo } from "react";
import { revealInvisible } from "../../core/layout/displayPiece";
import styles from "./SegmentRows.module.css";

interface CutoffRowProps {
  readonly reason: string;
  readonly lastToken: number;
  readonly style: CSSProperties;
}

/** The banner where the episode stopped, naming the reason and the exact last token. */
export const CutoffRow = memo(function CutoffRow({ reason, lastToken, style }: CutoffRowProps) {
  return (
    <div className={styles.cutoffRow} style={style}>
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

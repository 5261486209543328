import type { PartialTurn } from "../../core/trajectory/foldEvents";
import styles from "./LiveRun.module.css";

/** The text of the model turn being generated, before its tokens arrive as a segment. */
export function StreamingTurn({ partial }: { readonly partial: PartialTurn }) {
  return (
    <div className={styles.streaming} data-testid="streaming-turn" aria-live="polite">
      <div className={styles.streamingTitle}>
        turn {partial.turn} streaming · {partial.tokens} tokens
      </div>
      <pre className={styles.streamingText}>
        {partial.text}
        <span className={styles.caret}>▍</span>
      </pre>
    </div>
  );
}

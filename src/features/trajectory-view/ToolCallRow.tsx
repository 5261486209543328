import { memo } from "react";
import { revealInvisible } from "../../core/layout/displayPiece";
import type { ToolCall } from "../../core/trajectory/types";
import { rowStyle } from "./rowMetrics";
import styles from "./SegmentRows.module.css";

interface ToolCallRowProps {
  readonly call: ToolCall;
  readonly isCut: boolean;
  /** Row placement in CSS pixels (numbers, so memo holds while scrolling). */
  readonly top: number;
  readonly height: number;
}

function status(call: ToolCall, isCut: boolean): { text: string; className: string } {
  if (call.error) return { text: "parse error", className: styles.statusError ?? "" };
  if (call.result === undefined) {
    return {
      text: isCut ? "not run (episode cut)" : "no result",
      className: styles.statusMuted ?? "",
    };
  }
  // Under the iteration limit the last tools ran, but their results were never tokenized.
  if (isCut) {
    return {
      text: call.resultIsError ? "tool error · not fed back (cut)" : "ran · not fed back (cut)",
      className: styles.statusMuted ?? "",
    };
  }
  return call.resultIsError
    ? { text: "tool error", className: styles.statusError ?? "" }
    : { text: "ok", className: styles.statusOk ?? "" };
}

/** A parsed tool call as a card: name, arguments, result, or the parse error with its raw text. */
export const ToolCallRow = memo(function ToolCallRow({
  call,
  isCut,
  top,
  height,
}: ToolCallRowProps) {
  const { text, className } = status(call, isCut);
  // Rollout text: bidi and zero-width characters are shown, never obeyed (see displayPiece).
  const args = revealInvisible(JSON.stringify(call.arguments));
  const raw = revealInvisible(call.raw);
  const result = call.result === undefined ? undefined : revealInvisible(call.result);
  return (
    <div className={styles.cardRow} style={rowStyle(top, height)}>
      <div className={styles.card} data-testid="tool-call-card">
        <div className={styles.cardTitle}>
          <span className={styles.toolName}>{revealInvisible(call.name)}</span>
          <span className={styles.muted}>{call.id}</span>
          <span className={`${styles.status} ${className}`}>{text}</span>
        </div>
        {call.error ? (
          <>
            <div className={`${styles.cardLine} ${styles.callError}`} title={call.error}>
              <span className={styles.label}>error</span>
              {revealInvisible(call.error)}
            </div>
            <div className={styles.cardLine} title={raw}>
              <span className={styles.label}>raw</span>
              <mark className={styles.raw}>{raw}</mark>
            </div>
          </>
        ) : (
          <>
            <div className={styles.cardLine} title={args}>
              <span className={styles.label}>arguments</span>
              <code>{args}</code>
            </div>
            <div className={styles.cardLine} title={result}>
              <span className={styles.label}>result</span>
              <code>{result ?? "—"}</code>
            </div>
          </>
        )}
      </div>
    </div>
  );
});

import { memo } from "react";
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
  const args = JSON.stringify(call.arguments);
  return (
    <div className={styles.cardRow} style={rowStyle(top, height)}>
      <div className={styles.card} data-testid="tool-call-card">
        <div className={styles.cardTitle}>
          <span className={styles.toolName}>{call.name}</span>
          <span className={styles.muted}>{call.id}</span>
          <span className={`${styles.status} ${className}`}>{text}</span>
        </div>
        <div className={styles.cardLine} title={args}>
          <span className={styles.label}>arguments</span>
          <code>{args}</code>
        </div>
        {call.error ? (
          <div className={styles.cardLine} title={call.raw}>
            <span className={styles.label}>{call.error}</span>
            <mark className={styles.raw}>{call.raw}</mark>
          </div>
        ) : (
          <div className={styles.cardLine} title={call.result}>
            <span className={styles.label}>result</span>
            <code>{call.result ?? "—"}</code>
          </div>
        )}
      </div>
    </div>
  );
});

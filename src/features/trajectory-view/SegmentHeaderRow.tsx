import { memo } from "react";
import { revealInvisible } from "../../core/layout/displayPiece";
import type { SegmentPolicy } from "../../core/trajectory/policyVersions";
import type { Segment } from "../../core/trajectory/types";
import { finishText, KIND_LABEL } from "./kindLabels";
import { rowStyle } from "./rowMetrics";
import styles from "./SegmentRows.module.css";

interface SegmentHeaderRowProps {
  readonly segment: Segment;
  readonly index: number;
  readonly firstToken: number;
  readonly cutReason: string | undefined;
  /** The policy versions of its tokens, when the record has them (docs/format.md). */
  readonly policy?: SegmentPolicy | undefined;
  /** Row placement in CSS pixels (numbers, so memo holds while scrolling). */
  readonly top: number;
  readonly height: number;
}

// One formatter: toLocaleString builds a new one per call, which showed up in scroll profiles.
const COUNT_FORMAT = new Intl.NumberFormat("en-US");

/** The header above a segment's tokens: turn, kind, token count, finish reason. */
export const SegmentHeaderRow = memo(function SegmentHeaderRow(props: SegmentHeaderRowProps) {
  const { segment, index, firstToken, cutReason, policy } = props;
  const finish = finishText(segment.finishReason);
  return (
    <div
      className={`${styles.header} ${styles[segment.kind]}`}
      style={rowStyle(props.top, props.height)}
      data-segment={index}
    >
      <span className={styles.badge}>{KIND_LABEL[segment.kind]}</span>
      <span>turn {segment.turn}</span>
      <span>{COUNT_FORMAT.format(segment.tokenIds.length)} tokens</span>
      <span className={styles.muted}>from #{firstToken}</span>
      {finish && <span className={styles.muted}>finish: {revealInvisible(finish)}</span>}
      {segment.toolCalls && segment.toolCalls.length > 0 && (
        <span className={styles.muted}>
          {segment.toolCalls.length} tool call{segment.toolCalls.length > 1 ? "s" : ""}
        </span>
      )}
      {policy && (
        <span
          className={`${styles.policy} ${
            policy.staleness === undefined
              ? styles.policyUnknown
              : policy.staleness === 0
                ? styles.policyCurrent
                : styles.policyStale
          }`}
          data-testid="segment-policy"
        >
          {policy.label}
        </span>
      )}
      {cutReason && (
        <span className={styles.cutBadge} title={cutReason}>
          ✂ {cutReason}
        </span>
      )}
    </div>
  );
});

import { type CSSProperties, memo } from "react";
import { isSpecialPiece, visibleText } from "../../core/layout/displayPiece";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import type { TokenLayout } from "../../core/layout/tokenRows";
import type { SegmentKind } from "../../core/trajectory/types";
import { heatColor } from "./heatColor";
import styles from "./TokenRow.module.css";

interface TokenRowProps {
  readonly row: number;
  readonly layout: TokenLayout;
  readonly pieces: readonly string[];
  readonly flat: FlatTrajectory;
  readonly kind: SegmentKind;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  /** The selected token when it is on this row, else -1 (keeps other rows memoized). */
  readonly selected: number;
  /** The token where the episode was cut when it is on this row, else -1. */
  readonly cutToken: number;
  readonly style: CSSProperties;
}

function heatStyle(flat: FlatTrajectory, token: number): CSSProperties | "notRecorded" | "dim" {
  if (flat.lossMask[token] !== 1) return "dim";
  const lp = flat.logprobs[token] ?? Number.NaN;
  return Number.isNaN(lp) ? "notRecorded" : heatColor(Math.exp(lp));
}

/** One row of token boxes: only rows in view are mounted, and each re-renders only when its props change. */
export const TokenRow = memo(function TokenRow(props: TokenRowProps) {
  const { row, layout, pieces, flat, kind, showWhitespace, isHeatmap, selected, cutToken } = props;
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  const spans = [];
  for (let f = from; f < to; f++) {
    const token = layout.fragToken[f] ?? 0;
    const piece = pieces[token] ?? "";
    const fragment = piece.slice(layout.fragStart[f], layout.fragEnd[f]);
    const classes = [styles.tok, styles[kind], token % 2 === 1 ? styles.odd : ""];
    if (isSpecialPiece(piece)) classes.push(styles.special);
    let style: CSSProperties | undefined;
    if (isHeatmap) {
      const heat = heatStyle(flat, token);
      if (heat === "dim") classes.push(styles.dim);
      else if (heat === "notRecorded") classes.push(styles.notRecorded);
      else style = heat;
    }
    if (token === selected) classes.push(styles.selected);
    if (token === cutToken && f === to - 1) classes.push(styles.cut);
    spans.push(
      <span
        key={f}
        data-t={token}
        className={classes.join(" ")}
        style={style}
        role="option"
        aria-selected={token === selected}
        tabIndex={token === selected ? 0 : -1}
      >
        {fragment.length === 0 ? "∅" : visibleText(fragment, showWhitespace)}
      </span>,
    );
  }
  return (
    <div className={`${styles.row} ${styles[`${kind}Row`]}`} style={props.style}>
      <span className={styles.gutter}>{layout.fragToken[from]}</span>
      <span className={styles.tokens}>{spans}</span>
    </div>
  );
});

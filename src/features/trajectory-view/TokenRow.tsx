import { memo, useLayoutEffect, useRef } from "react";
import { rowStyle } from "./rowMetrics";
import styles from "./TokenRow.module.css";
import type { TokenClasses, TokenRowInput } from "./tokenCells";
import { patchTokenRow } from "./tokenRowDom";

interface TokenRowProps extends TokenRowInput {
  /** Offset of the row from the top of the list, in CSS pixels (a number keeps memo effective). */
  readonly top: number;
  readonly height: number;
}

const CLASSES: TokenClasses = {
  tok: styles.tok ?? "",
  prompt: styles.prompt ?? "",
  model: styles.model ?? "",
  tool: styles.tool ?? "",
  odd: styles.odd ?? "",
  special: styles.special ?? "",
  dim: styles.dim ?? "",
  notRecorded: styles.notRecorded ?? "",
  selected: styles.selected ?? "",
  cut: styles.cut ?? "",
  turnRemoved: styles.turnRemoved ?? "",
  turnInserted: styles.turnInserted ?? "",
  failedCall: styles.failedCall ?? "",
  clipped: styles.clipped ?? "",
  masked: styles.masked ?? "",
};

/**
 * `value`, or the object of the last render when every field is the same (Object.is): the row's
 * input as one effect dependency, so its fields are listed once (in TokenRowInput).
 */
function useSameFields<T extends object>(value: T): T {
  const last = useRef(value);
  const before = last.current as Record<string, unknown>;
  const now = value as Record<string, unknown>;
  const keys = Object.keys(now);
  const same =
    keys.length === Object.keys(before).length && keys.every((k) => Object.is(before[k], now[k]));
  if (!same) last.current = value;
  return last.current;
}

/** One row of token boxes: only rows in view are mounted, and each re-renders only when its props change. */
export const TokenRow = memo(function TokenRow(props: TokenRowProps) {
  const { top, height, ...fields } = props;
  const { row, layout, kind } = fields;
  const tokensRef = useRef<HTMLSpanElement>(null);
  const input = useSameFields<TokenRowInput>(fields);
  useLayoutEffect(() => {
    const element = tokensRef.current;
    if (!element) return;
    const hadFocus = element.contains(document.activeElement);
    patchTokenRow(element, input, CLASSES);
    // A focused span may now stand for another token (or be gone): hand focus to the selected one
    // so arrow keys keep working.
    const active = document.activeElement;
    if (
      hadFocus &&
      !(active instanceof HTMLElement && element.contains(active) && active.tabIndex === 0)
    ) {
      const next =
        element.querySelector<HTMLElement>('[tabindex="0"]') ?? element.closest("[tabindex]");
      if (next instanceof HTMLElement) next.focus({ preventScroll: true });
    }
  }, [input]);
  return (
    <div className={`${styles.row} ${styles[`${kind}Row`]}`} style={rowStyle(top, height)}>
      <span className={styles.gutter}>{layout.fragToken[layout.rowFragStart[row] ?? 0]}</span>
      <span className={styles.tokens} ref={tokensRef} />
    </div>
  );
});

import type { VirtualItem, Virtualizer } from "@tanstack/react-virtual";
import {
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
  type RefObject,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import type { ScrollScale } from "../../core/layout/scrollScale";
import { KindedSlotRecycler } from "../../core/layout/slotRecycler";
import { RowKind, type TokenLayout } from "../../core/layout/tokenRows";
import type { SegmentPolicy } from "../../core/trajectory/policyVersions";
import type { Trajectory } from "../../core/trajectory/types";
import { useHeatFloor, useIsHeatmap, useShowWhitespace } from "../../stores/prefsStore";
import { CutoffRow } from "./CutoffRow";
import { fastRowsOf, paintFastRows } from "./fastRowsCanvas";
import { SegmentHeaderRow } from "./SegmentHeaderRow";
import { currentScale, itemTop } from "./scaledScroll";
import styles from "./TokenList.module.css";
import { TokenRow } from "./TokenRow";
import { ToolCallRow } from "./ToolCallRow";
import type { MismatchShading } from "./tokenCells";
import type { TrajectoryModel } from "./useTrajectoryModel";

interface TokenListProps {
  readonly trajectory: Trajectory;
  readonly model: TrajectoryModel;
  readonly layout: TokenLayout;
  readonly virtualizer: Virtualizer<HTMLDivElement, Element>;
  readonly scrollRef: RefObject<HTMLDivElement | null>;
  /** The selected token, or undefined. */
  readonly selected: number | undefined;
  /** Moving over a third of a screen a frame: rows are painted into a canvas (fastRowsCanvas). */
  readonly isFastScrolling: boolean;
  /** The token under the pointer; undefined when it leaves the list. */
  readonly onHover: (token: number | undefined) => void;
  readonly onSelect: (token: number) => void;
  readonly onStep: (delta: number) => void;
  /** `b` on the keyboard (a token selected): branch from it. */
  readonly onBranchKey?: () => void;
  /** Shade by logprob whatever the toggle says (mismatch mode on a lane shown on its own). */
  readonly isHeatmapForced?: boolean;
  /** Mismatch mode's shading (overrides the heatmap); undefined when off. */
  readonly mismatch?: MismatchShading | undefined;
  /** Per token, the selected turn's prefix-check marks (TokenRowInput.turnMarks). */
  readonly turnMarks?: Uint8Array | undefined;
  /** Per segment: its policy versions, for its header (docs/format.md, Policy versions). */
  readonly policies?: readonly (SegmentPolicy | undefined)[] | undefined;
  /** Said over the list instead of its `#id` placeholders (the tokenizer is loading). */
  readonly loading?: string | undefined;
}

function tokenOf(event: MouseEvent | KeyboardEvent | React.FocusEvent): number | undefined {
  const target = event.target instanceof Element ? event.target.closest("[data-t]") : null;
  const value = target?.getAttribute("data-t");
  return value === null || value === undefined ? undefined : Number(value);
}

/** What every row of one render shares. */
interface RowContext {
  readonly trajectory: Trajectory;
  readonly model: TrajectoryModel;
  readonly layout: TokenLayout;
  readonly selected: number | undefined;
  readonly showWhitespace: boolean;
  readonly isHeatmap: boolean;
  readonly heatFloor: number;
  readonly mismatch: MismatchShading | undefined;
  readonly turnMarks: Uint8Array | undefined;
  readonly policies: readonly (SegmentPolicy | undefined)[] | undefined;
}

/** Row `r` of the layout as its element (header, tool call, cutoff or tokens), keyed by slot. */
function renderRow(
  r: number,
  key: string | undefined,
  top: number,
  height: number,
  context: RowContext,
): ReactNode {
  const { trajectory, layout, selected, showWhitespace, isHeatmap, heatFloor, turnMarks } = context;
  const { flat, pieces, cutReasons, failedCalls, controlTokens } = context.model;
  const s = layout.rowSegment[r] ?? 0;
  const segment = trajectory.segments[s];
  if (!segment) return null;
  const first = flat.segmentStarts[s] ?? 0;
  const last = (flat.segmentStarts[s + 1] ?? first) - 1;
  const reason = cutReasons[s];
  switch (layout.rowKind[r]) {
    case RowKind.header:
      return (
        <SegmentHeaderRow
          key={key}
          segment={segment}
          index={s}
          firstToken={first}
          cutReason={reason}
          policy={context.policies?.[s]}
          top={top}
          height={height}
        />
      );
    case RowKind.toolCall: {
      const call = segment.toolCalls?.[layout.rowItem[r] ?? 0];
      return call ? (
        <ToolCallRow key={key} call={call} isCut={reason !== undefined} top={top} height={height} />
      ) : null;
    }
    case RowKind.cutoff:
      return (
        <CutoffRow key={key} reason={reason ?? "cut"} lastToken={last} top={top} height={height} />
      );
    default: {
      const lo = layout.fragToken[layout.rowFragStart[r] ?? 0] ?? 0;
      const hi = layout.fragToken[(layout.rowFragStart[r + 1] ?? 1) - 1] ?? 0;
      return (
        <TokenRow
          key={key}
          row={r}
          layout={layout}
          pieces={pieces}
          flat={flat}
          kind={segment.kind}
          showWhitespace={showWhitespace}
          isHeatmap={isHeatmap}
          heatFloor={heatFloor}
          mismatch={context.mismatch}
          selected={
            selected !== undefined && selected >= lo && selected <= hi ? selected : undefined
          }
          cutToken={reason !== undefined && last >= lo && last <= hi ? last : undefined}
          failedCalls={failedCalls}
          turnMarks={turnMarks}
          controlTokens={controlTokens}
          top={top}
          height={height}
        />
      );
    }
  }
}

/**
 * Fast: the DOM rows stay as they were (off screen by now) and the canvas paints this frame's
 * visible rows; runs after every render while `isFastScrolling`.
 */
function useFastRowsPaint(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  scrollRef: RefObject<HTMLDivElement | null>,
  isFastScrolling: boolean,
  view: {
    readonly virtualizer: Virtualizer<HTMLDivElement, Element>;
    readonly scale: ScrollScale;
    readonly items: readonly VirtualItem[];
  },
  context: RowContext,
) {
  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    const el = scrollRef.current;
    if (!isFastScrolling || !canvas || !el) return;
    const { virtualizer, scale, items } = view;
    const scrollTop = el.scrollTop;
    const visible = items.map((item) => ({
      index: item.index,
      y: itemTop(virtualizer, scale, item.start) - scrollTop,
      height: item.size,
    }));
    const { flat, pieces, cutReasons } = context.model;
    const rows = fastRowsOf(visible, {
      trajectory: context.trajectory,
      layout: context.layout,
      flat,
      pieces,
      cutReasons,
      showWhitespace: context.showWhitespace,
      isHeatmap: context.isHeatmap,
      heatFloor: context.heatFloor,
      mismatch: context.mismatch,
    });
    paintFastRows(canvas, el, rows);
  });
}

/** The virtualized rows: only rows in (or near) the viewport are mounted. */
export function TokenList(props: TokenListProps) {
  const { trajectory, model, layout, virtualizer, selected, isFastScrolling } = props;
  const showWhitespace = useShowWhitespace();
  const isHeatmap = useIsHeatmap() || props.isHeatmapForced === true;
  const heatFloor = useHeatFloor();

  // Rows are keyed by recycled slot, not index: a row leaving the viewport is re-rendered as the
  // row entering it, so scrolling rewrites elements instead of creating (and collecting) them.
  const [recycler] = useState(() => new KindedSlotRecycler());
  const scale = currentScale(virtualizer);
  const items = virtualizer.getVirtualItems();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const lastRows = useRef<ReactNode[]>([]);
  const rowContext: RowContext = {
    trajectory,
    model,
    layout,
    selected,
    showWhitespace,
    isHeatmap,
    heatFloor,
    mismatch: props.mismatch,
    turnMarks: props.turnMarks,
    policies: props.policies,
  };
  useFastRowsPaint(
    canvasRef,
    props.scrollRef,
    isFastScrolling,
    { virtualizer, scale, items },
    rowContext,
  );

  if (isFastScrolling) {
    return listFrame(lastRows.current, props, canvasRef, scale.physicalSize);
  }
  const keys = recycler.keys(
    items.map((item) => item.index),
    items.map((item) => layout.rowKind[item.index] ?? RowKind.tokens),
  );
  // The rows drawn under the loading veil hold `#id` placeholders; the decoded rows that replace
  // them are new elements, so nothing holding an old element (a pending click) lands on the token
  // a recycled element shows now.
  const generation = props.loading === undefined ? "" : "veiled-";
  const rows: ReactNode[] = items.map((item, i) =>
    renderRow(
      item.index,
      `${generation}${keys[i]}`,
      itemTop(virtualizer, scale, item.start),
      item.size,
      rowContext,
    ),
  );

  lastRows.current = rows;
  return listFrame(rows, props, canvasRef, scale.physicalSize);
}

/** ← → step the selection; `b` without a modifier branches from it. */
function handleListKey(event: KeyboardEvent, { onStep, onBranchKey }: TokenListProps) {
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    event.preventDefault();
    onStep(event.key === "ArrowRight" ? 1 : -1);
  } else if (
    event.key === "b" &&
    onBranchKey &&
    !event.ctrlKey &&
    !event.metaKey &&
    !event.altKey
  ) {
    event.preventDefault();
    onBranchKey();
  }
}

/**
 * The list around its rows: the fast-scroll canvas, the tokenizer-loading veil and the scroller
 * (`physicalSize` tall) that reports hover, click, focus and keys by token (`data-t`).
 */
function listFrame(
  children: ReactNode[],
  props: TokenListProps,
  canvasRef: RefObject<HTMLCanvasElement | null>,
  physicalSize: number,
) {
  const { selected } = props;
  return (
    <div className={styles.frame}>
      <canvas
        ref={canvasRef}
        className={styles.fastCanvas}
        hidden={!props.isFastScrolling}
        data-testid="fast-rows"
      />
      {props.loading !== undefined && (
        <div className={styles.loading} role="status" data-testid="tokenizer-loading">
          {props.loading}
        </div>
      )}
      <div
        ref={props.scrollRef}
        className={styles.scroller}
        role="listbox"
        aria-label="tokens"
        tabIndex={0}
        data-testid="token-scroller"
        onMouseOver={(event) => {
          const token = tokenOf(event);
          if (token !== undefined) props.onHover(token);
        }}
        onMouseLeave={() => props.onHover(undefined)}
        onClick={(event) => {
          const token = tokenOf(event);
          if (token !== undefined) props.onSelect(token);
        }}
        onFocus={(event) => {
          const token = tokenOf(event);
          if (token !== undefined && token !== selected) props.onSelect(token);
        }}
        onKeyDown={(event) => handleListKey(event, props)}
      >
        <div className={styles.inner} style={{ height: physicalSize }}>
          {children}
        </div>
      </div>
    </div>
  );
}

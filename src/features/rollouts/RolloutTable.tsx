import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, type RefObject, useEffect, useRef } from "react";
import type { RowDrift } from "../../core/drift/rowDrift";
import type { DriftByRow, MismatchByRow, RowQuery, SortColumn } from "../../core/files/rowQuery";
import type { RowSummary } from "../../core/files/rowSummary";
import type { RowMismatch } from "../../core/mismatch/fileMismatch";
import { COLUMNS, type Column, DRIFT_COLUMN, MISMATCH_COLUMN } from "./columns";
import styles from "./RolloutTable.module.css";

const ROW_HEIGHT = 26;

export interface RolloutTableProps {
  readonly rows: readonly RowSummary[];
  /** Row indices to show, in display order (already filtered and sorted). */
  readonly order: readonly number[];
  readonly query: RowQuery;
  /** Position in `order` of the keyboard cursor. */
  readonly cursor: number;
  readonly onCursor: (position: number) => void;
  readonly onSort: (column: SortColumn) => void;
  readonly onOpen: (rowIndex: number) => void;
  /** Per-row drift by row index, once the file was checked: adds the drift column. */
  readonly drift?: DriftByRow | undefined;
  /** Per-row mismatch by row index, once the file was scanned: adds the mismatch column. */
  readonly mismatch?: MismatchByRow | undefined;
}

/** The grid's key handler: j/k/arrows and PageUp/PageDown move the cursor, Home/End, Enter opens. */
function gridKeyHandler(
  {
    order,
    cursor,
    onCursor,
    onOpen,
  }: Pick<RolloutTableProps, "order" | "cursor" | "onCursor" | "onOpen">,
  scrollRef: RefObject<HTMLDivElement | null>,
) {
  return (event: KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 260) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      j: 1,
      ArrowDown: 1,
      k: -1,
      ArrowUp: -1,
      PageDown: page,
      PageUp: -page,
    };
    const step = moves[event.key];
    if (step !== undefined) {
      event.preventDefault();
      onCursor(Math.max(0, Math.min(order.length - 1, cursor + step)));
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      onCursor(event.key === "Home" ? 0 : order.length - 1);
    } else if (event.key === "Enter") {
      const rowIndex = order[cursor];
      if (rowIndex !== undefined) onOpen(rowIndex);
    }
  };
}

/** The trajectories of a file: virtualized, sortable by any column, driven by j/k/arrows/Enter. */
export function RolloutTable(props: RolloutTableProps) {
  const { rows, order, query, cursor, onCursor, onSort, onOpen, drift, mismatch } = props;
  const columns = [
    ...COLUMNS,
    ...(drift ? [DRIFT_COLUMN] : []),
    ...(mismatch ? [MISMATCH_COLUMN] : []),
  ];
  const gridTemplate = columns.map((c) => c.width).join(" ");
  const scrollRef = useRef<HTMLDivElement>(null);
  const tableRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: order.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  // j/k work at once; the page, which scrolls on a short screen, still opens at its top.
  useEffect(() => {
    tableRef.current?.focus({ preventScroll: true });
  }, []);
  useEffect(() => {
    if (cursor >= 0 && cursor < order.length) virtualizer.scrollToIndex(cursor, { align: "auto" });
  }, [cursor, order.length, virtualizer]);
  const handleKeyDown = gridKeyHandler(props, scrollRef);

  return (
    // biome-ignore lint/a11y/useSemanticElements: virtualized absolute rows cannot live in a <table>
    <div
      ref={tableRef}
      role="grid"
      className={styles.table}
      aria-label="trajectories"
      data-testid="rollout-table"
      tabIndex={0}
      onKeyDown={handleKeyDown}
    >
      <SortHeader columns={columns} gridTemplate={gridTemplate} query={query} onSort={onSort} />
      <div ref={scrollRef} className={styles.scroll}>
        {order.length === 0 ? (
          <div className={styles.empty}>no trajectory matches the filters</div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const rowIndex = order[item.index] ?? 0;
              const row = rows[rowIndex];
              if (!row) return null;
              return (
                // biome-ignore lint/a11y: the grid itself takes the keys (j/k/Enter); rows only take clicks
                <div
                  key={rowIndex}
                  data-cursor={item.index === cursor ? "" : undefined}
                  data-row={rowIndex}
                  className={`${styles.row} ${item.index === cursor ? styles.cursor : ""}`}
                  style={{
                    gridTemplateColumns: gridTemplate,
                    transform: `translateY(${item.start}px)`,
                  }}
                  onClick={() => onCursor(item.index)}
                  onDoubleClick={() => onOpen(rowIndex)}
                >
                  {columns.map((c) => (
                    <RowCell
                      key={c.key}
                      column={c}
                      row={row}
                      drift={drift?.[rowIndex]}
                      mismatch={mismatch?.[rowIndex]}
                    />
                  ))}
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}

interface SortHeaderProps {
  readonly columns: readonly Column[];
  readonly gridTemplate: string;
  readonly query: RowQuery;
  readonly onSort: (column: SortColumn) => void;
}

/** The column heads: each sorts by its column, the sorted one shows ▲ or ▼. */
function SortHeader({ columns, gridTemplate, query, onSort }: SortHeaderProps) {
  return (
    <div className={styles.header} style={{ gridTemplateColumns: gridTemplate }}>
      {columns.map((c) => {
        const isSorted = (query.sort ?? "index") === c.key;
        const arrow = isSorted ? (query.descending ? " ▼" : " ▲") : "";
        return (
          <button
            key={c.key}
            type="button"
            data-sort={isSorted ? (query.descending ? "descending" : "ascending") : undefined}
            title={`${c.title} — click to sort`}
            className={c.isNumeric ? styles.num : undefined}
            onClick={() => onSort(c.key)}
          >
            {c.label}
            {arrow}
          </button>
        );
      })}
    </div>
  );
}

interface RowCellProps {
  readonly column: Column;
  readonly row: RowSummary;
  readonly drift: RowDrift | undefined;
  readonly mismatch: RowMismatch | undefined;
}

/** One cell; status takes its colour, tool errors and trained drift are bad, other drift warns. */
function RowCell({ column: c, row, drift, mismatch }: RowCellProps) {
  const extra =
    c.key === "status"
      ? styles[row.status]
      : (c.key === "toolErrors" && row.toolErrors > 0) ||
          (c.key === "drift" && (drift?.trainableAffected ?? 0) > 0)
        ? styles.bad
        : (c.key === "drift" && (drift?.regions ?? 0) > 0) ||
            (c.key === "mismatch" && (mismatch?.fractionCorrected ?? 0) > 0)
          ? styles.warn
          : "";
  return (
    <div
      data-col={c.key}
      className={`${styles.cell} ${c.isNumeric ? styles.num : ""} ${extra ?? ""}`}
    >
      {c.format(row, drift, mismatch)}
    </div>
  );
}

import { cellsOf, unitCells } from "../core/layout/displayPiece";
import { type LayoutInput, RowKind, type TokenLayout } from "../core/layout/tokenRows";

/**
 * The layout before the per-piece width cache and typed buffers (commit 30f7aed), kept as the
 * oracle of src/core/layout/tokenRows.test.ts (its algorithm verbatim, only the packing of its
 * arrays factored out): the fast path must break rows exactly as the character-by-character one
 * did.
 */
export function referenceLayout(input: LayoutInput): TokenLayout {
  const { pieces, segmentStarts, toolCallCounts, cutSegments } = input;
  if (!Number.isInteger(input.columns) || input.columns < 1) {
    throw new Error(`layoutTokens: columns must be a positive integer, got ${input.columns}`);
  }
  const columns = input.columns;
  const segmentCount = segmentStarts.length - 1;
  const tokenCount = segmentStarts[segmentCount] ?? 0;
  if (pieces.length !== tokenCount) {
    throw new Error(`layoutTokens: ${pieces.length} pieces for ${tokenCount} tokens`);
  }

  const rowKind: number[] = [];
  const rowSegment: number[] = [];
  const rowItem: number[] = [];
  const rowFragStart: number[] = [];
  const fragToken: number[] = [];
  const fragStart: number[] = [];
  const fragEnd: number[] = [];
  const fragColumn: number[] = [];
  const tokenFirstRow = new Int32Array(tokenCount);

  let segment = 0;
  let column = 0;
  let isRowOpen = false;

  const pushRow = (kind: RowKind, item: number) => {
    rowKind.push(kind);
    rowSegment.push(segment);
    rowItem.push(item);
    rowFragStart.push(fragToken.length);
  };
  const endRow = () => {
    isRowOpen = false;
    column = 0;
  };
  const pushFrag = (token: number, start: number, end: number, cells: number) => {
    if (!isRowOpen) {
      pushRow(RowKind.tokens, -1);
      isRowOpen = true;
    }
    if (fragToken.length === 0 || fragToken[fragToken.length - 1] !== token) {
      tokenFirstRow[token] = rowKind.length - 1;
    }
    fragToken.push(token);
    fragStart.push(start);
    fragEnd.push(end);
    fragColumn.push(column);
    column += cells;
  };

  for (segment = 0; segment < segmentCount; segment++) {
    pushRow(RowKind.header, -1);
    endRow();
    const first = segmentStarts[segment] ?? 0;
    const last = segmentStarts[segment + 1] ?? first;
    for (let token = first; token < last; token++) {
      const piece = pieces[token] ?? "";
      if (piece.length === 0) {
        // An empty piece still gets one cell so it stays visible and hoverable.
        if (column + 1 > columns && column > 0) endRow();
        pushFrag(token, 0, 0, 1);
        continue;
      }
      let i = 0;
      while (i < piece.length) {
        const newline = piece.indexOf("\n", i);
        const runEnd = newline === -1 ? piece.length : newline;
        let width = cellsOf(piece, i, runEnd);
        // Word-wrap: move a run that would fit on a fresh row instead of splitting it.
        if (column + width > columns && column > 0 && width <= columns) endRow();
        while (column + width > columns) {
          let k = i;
          let used = 0;
          while (k < runEnd) {
            const w = unitCells(piece.charCodeAt(k));
            if (column + used + w > columns) break;
            used += w;
            k++;
          }
          // Never split a surrogate pair; a cell too narrow for one glyph still takes that glyph.
          if (k > i && unitCells(piece.charCodeAt(k)) === 0) k--;
          if (k === i && column === 0) {
            k = i + (unitCells(piece.charCodeAt(i)) === 2 && i + 1 < runEnd ? 2 : 1);
          }
          if (k > i) pushFrag(token, i, k, cellsOf(piece, i, k));
          endRow();
          i = k;
          width = cellsOf(piece, i, runEnd);
        }
        if (newline === -1) {
          if (runEnd > i) pushFrag(token, i, runEnd, width);
          break;
        }
        // The newline glyph hangs in the cell after the text, then the row ends.
        pushFrag(token, i, newline + 1, width + 1);
        endRow();
        i = newline + 1;
      }
    }
    endRow();
    for (let call = 0; call < (toolCallCounts[segment] ?? 0); call++)
      pushRow(RowKind.toolCall, call);
    if (cutSegments[segment]) pushRow(RowKind.cutoff, -1);
  }
  rowFragStart.push(fragToken.length);
  const rows = { rowKind, rowSegment, rowItem, rowFragStart };
  return packLayout(columns, rows, { fragToken, fragStart, fragEnd, fragColumn }, tokenFirstRow);
}

/** The oracle's plain arrays as a TokenLayout's typed ones. */
function packLayout(
  columns: number,
  rows: Record<"rowKind" | "rowSegment" | "rowItem" | "rowFragStart", number[]>,
  frags: Record<"fragToken" | "fragStart" | "fragEnd" | "fragColumn", number[]>,
  tokenFirstRow: Int32Array,
): TokenLayout {
  return {
    columns,
    rowCount: rows.rowKind.length,
    rowKind: Uint8Array.from(rows.rowKind),
    rowSegment: Int32Array.from(rows.rowSegment),
    rowItem: Int32Array.from(rows.rowItem),
    rowFragStart: Int32Array.from(rows.rowFragStart),
    fragToken: Int32Array.from(frags.fragToken),
    fragStart: Int32Array.from(frags.fragStart),
    fragEnd: Int32Array.from(frags.fragEnd),
    fragColumn: Int32Array.from(frags.fragColumn),
    tokenFirstRow,
  };
}

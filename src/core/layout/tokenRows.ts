import type { TokenIndex } from "../trajectory/types";
import { cellsOf, unitCells } from "./displayPiece";

/** Index of a row in a token layout (0-based, top to bottom). */
export type RowIndex = number & { readonly __brand: "RowIndex" };

/** What a row shows; every kind has a fixed height chosen by the view. */
export const RowKind = { header: 0, tokens: 1, toolCall: 2, cutoff: 3 } as const;
export type RowKind = (typeof RowKind)[keyof typeof RowKind];

export interface LayoutInput {
  /** Display piece per token (token-index order). */
  readonly pieces: readonly string[];
  /** Token index where each segment starts; length = segments + 1. */
  readonly segmentStarts: Int32Array;
  /** Parsed tool calls per segment (one card row each). */
  readonly toolCallCounts: readonly number[];
  /** Segments that ended the episode (a cutoff row follows them). */
  readonly cutSegments: readonly boolean[];
  /** Usable width in monospace cells; a trailing newline glyph may hang one cell past it. */
  readonly columns: number;
}

/**
 * Rows of a trajectory as compact arrays. A token row holds fragments `[rowFragStart[r],
 * rowFragStart[r+1])`; a fragment is `[fragStart, fragEnd)` UTF-16 units of one token's piece,
 * starting at cell `fragColumn`.
 */
export interface TokenLayout {
  readonly columns: number;
  readonly rowCount: number;
  readonly rowKind: Uint8Array;
  readonly rowSegment: Int32Array;
  /** Tool call index for toolCall rows, -1 otherwise. */
  readonly rowItem: Int32Array;
  readonly rowFragStart: Int32Array;
  readonly fragToken: Int32Array;
  readonly fragStart: Int32Array;
  readonly fragEnd: Int32Array;
  readonly fragColumn: Int32Array;
  /** Row of each token's first fragment. */
  readonly tokenFirstRow: Int32Array;
}

/** An Int32Array that doubles when full, so the layout never goes through boxed JS arrays. */
class GrowableInt32 {
  array: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.array = new Int32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = new Int32Array(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }
  last(): number {
    return this.length > 0 ? (this.array[this.length - 1] ?? 0) : -1;
  }
  toArray(): Int32Array {
    return this.array.slice(0, this.length);
  }
}

/** Marks a piece that needs the slow path (it holds a newline) in the per-piece width cache. */
const HAS_NEWLINE = -1;

/** Breaks tokens into rows of at most `columns` cells (token-index space in, row-index space out). */
export function layoutTokens(input: LayoutInput): TokenLayout {
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

  // Capacities from the common case (a few cells per token); the arrays grow past them if needed.
  const rowGuess = segmentCount * 4 + (tokenCount >> 3);
  const rowKind = new GrowableInt32(rowGuess);
  const rowSegment = new GrowableInt32(rowGuess);
  const rowItem = new GrowableInt32(rowGuess);
  const rowFragStart = new GrowableInt32(rowGuess);
  const fragGuess = tokenCount + (tokenCount >> 4);
  const fragToken = new GrowableInt32(fragGuess);
  const fragStart = new GrowableInt32(fragGuess);
  const fragEnd = new GrowableInt32(fragGuess);
  const fragColumn = new GrowableInt32(fragGuess);
  const tokenFirstRow = new Int32Array(tokenCount);
  // Cells per distinct piece (HAS_NEWLINE for pieces that need splitting): vocabularies are small
  // next to trajectories, so most tokens skip the per-character scan.
  const widthOfPiece = new Map<string, number>();

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
    if (fragToken.last() !== token) tokenFirstRow[token] = rowKind.length - 1;
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
      let known = widthOfPiece.get(piece);
      if (known === undefined) {
        known = piece.includes("\n") ? HAS_NEWLINE : cellsOf(piece, 0, piece.length);
        widthOfPiece.set(piece, known);
      }
      // Fast path: a newline-free piece that fits on this row, or on a fresh one.
      if (known !== HAS_NEWLINE && known <= columns) {
        if (column + known > columns && column > 0) endRow();
        pushFrag(token, 0, piece.length, known);
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

  return {
    columns,
    rowCount: rowKind.length,
    rowKind: Uint8Array.from(rowKind.toArray()),
    rowSegment: rowSegment.toArray(),
    rowItem: rowItem.toArray(),
    rowFragStart: rowFragStart.toArray(),
    fragToken: fragToken.toArray(),
    fragStart: fragStart.toArray(),
    fragEnd: fragEnd.toArray(),
    fragColumn: fragColumn.toArray(),
    tokenFirstRow,
  };
}

/** Row of a token's first fragment (token-index space to row-index space). */
export function rowOfToken(layout: TokenLayout, token: TokenIndex | number): RowIndex {
  const row = layout.tokenFirstRow[token];
  if (row === undefined) throw new Error(`rowOfToken: token ${token} is outside the layout`);
  // Brand the plain row number read from the layout's own table.
  return row as RowIndex;
}

/** First and last token index shown on a row, or undefined for rows without tokens. */
export function tokenRangeOfRow(
  layout: TokenLayout,
  row: RowIndex | number,
): readonly [number, number] | undefined {
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  if (to <= from) return undefined;
  return [layout.fragToken[from] ?? 0, layout.fragToken[to - 1] ?? 0];
}

/** Token under a cell column of a row (cells from the row start), or undefined past the end. */
export function tokenAtCell(
  layout: TokenLayout,
  pieces: readonly string[],
  row: RowIndex | number,
  column: number,
): number | undefined {
  const from = layout.rowFragStart[row] ?? 0;
  const to = layout.rowFragStart[row + 1] ?? from;
  for (let f = to - 1; f >= from; f--) {
    const start = layout.fragColumn[f] ?? 0;
    if (column < start) continue;
    const token = layout.fragToken[f] ?? 0;
    const piece = pieces[token] ?? "";
    const cells = Math.max(1, cellsOf(piece, layout.fragStart[f] ?? 0, layout.fragEnd[f] ?? 0));
    return column < start + cells ? token : undefined;
  }
  return undefined;
}

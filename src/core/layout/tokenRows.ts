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
  const segmentCount = segmentStarts.length - 1;
  const tokenCount = segmentStarts[segmentCount] ?? 0;
  if (pieces.length !== tokenCount) {
    throw new Error(`layoutTokens: ${pieces.length} pieces for ${tokenCount} tokens`);
  }
  const rows = new RowBuilder(input.columns, segmentCount, tokenCount);
  for (let segment = 0; segment < segmentCount; segment++) {
    rows.segment = segment;
    rows.pushRow(RowKind.header, -1);
    rows.endRow();
    const first = segmentStarts[segment] ?? 0;
    const last = segmentStarts[segment + 1] ?? first;
    for (let token = first; token < last; token++) rows.placeToken(token, pieces[token] ?? "");
    rows.endRow();
    for (let call = 0; call < (toolCallCounts[segment] ?? 0); call++) {
      rows.pushRow(RowKind.toolCall, call);
    }
    if (cutSegments[segment]) rows.pushRow(RowKind.cutoff, -1);
  }
  return rows.finish();
}

/** A layout being built: its rows and fragments so far, and where the open row ends. */
class RowBuilder {
  readonly rowKind: GrowableInt32;
  readonly rowSegment: GrowableInt32;
  readonly rowItem: GrowableInt32;
  readonly rowFragStart: GrowableInt32;
  readonly fragToken: GrowableInt32;
  readonly fragStart: GrowableInt32;
  readonly fragEnd: GrowableInt32;
  readonly fragColumn: GrowableInt32;
  readonly tokenFirstRow: Int32Array;
  /**
   * Cells per distinct piece (HAS_NEWLINE for pieces that need splitting): vocabularies are small
   * next to trajectories, so most tokens skip the per-character scan.
   */
  readonly widthOfPiece = new Map<string, number>();
  segment = 0;
  column = 0;
  isRowOpen = false;

  constructor(
    readonly columns: number,
    segmentCount: number,
    tokenCount: number,
  ) {
    // Capacities from the common case (a few cells per token); the arrays grow past them if needed.
    const rowGuess = segmentCount * 4 + (tokenCount >> 3);
    this.rowKind = new GrowableInt32(rowGuess);
    this.rowSegment = new GrowableInt32(rowGuess);
    this.rowItem = new GrowableInt32(rowGuess);
    this.rowFragStart = new GrowableInt32(rowGuess);
    const fragGuess = tokenCount + (tokenCount >> 4);
    this.fragToken = new GrowableInt32(fragGuess);
    this.fragStart = new GrowableInt32(fragGuess);
    this.fragEnd = new GrowableInt32(fragGuess);
    this.fragColumn = new GrowableInt32(fragGuess);
    this.tokenFirstRow = new Int32Array(tokenCount);
  }

  pushRow(kind: RowKind, item: number): void {
    this.rowKind.push(kind);
    this.rowSegment.push(this.segment);
    this.rowItem.push(item);
    this.rowFragStart.push(this.fragToken.length);
  }

  endRow(): void {
    this.isRowOpen = false;
    this.column = 0;
  }

  /** UTF-16 units [start, end) of `token`'s piece, `cells` wide, onto the open row (or a new one). */
  pushFrag(token: number, start: number, end: number, cells: number): void {
    if (!this.isRowOpen) {
      this.pushRow(RowKind.tokens, -1);
      this.isRowOpen = true;
    }
    if (this.fragToken.last() !== token) this.tokenFirstRow[token] = this.rowKind.length - 1;
    this.fragToken.push(token);
    this.fragStart.push(start);
    this.fragEnd.push(end);
    this.fragColumn.push(this.column);
    this.column += cells;
  }

  /** One token's piece placed: on the open row if it fits, else wrapped. */
  placeToken(token: number, piece: string): void {
    const columns = this.columns;
    if (piece.length === 0) {
      // An empty piece still gets one cell so it stays visible and hoverable.
      if (this.column + 1 > columns && this.column > 0) this.endRow();
      this.pushFrag(token, 0, 0, 1);
      return;
    }
    let known = this.widthOfPiece.get(piece);
    if (known === undefined) {
      known = piece.includes("\n") ? HAS_NEWLINE : cellsOf(piece, 0, piece.length);
      this.widthOfPiece.set(piece, known);
    }
    // Fast path: a newline-free piece that fits on this row, or on a fresh one.
    if (known !== HAS_NEWLINE && known <= columns) {
      if (this.column + known > columns && this.column > 0) this.endRow();
      this.pushFrag(token, 0, piece.length, known);
      return;
    }
    this.placeWrapped(token, piece);
  }

  /** A piece with newlines or wider than a row: run by run, each wrapped at the row's edge. */
  private placeWrapped(token: number, piece: string): void {
    const columns = this.columns;
    let i = 0;
    while (i < piece.length) {
      const newline = piece.indexOf("\n", i);
      const runEnd = newline === -1 ? piece.length : newline;
      let width = cellsOf(piece, i, runEnd);
      // Word-wrap: move a run that would fit on a fresh row instead of splitting it.
      if (this.column + width > columns && this.column > 0 && width <= columns) this.endRow();
      while (this.column + width > columns) {
        const k = this.rowBreak(piece, i, runEnd);
        if (k > i) this.pushFrag(token, i, k, cellsOf(piece, i, k));
        this.endRow();
        i = k;
        width = cellsOf(piece, i, runEnd);
      }
      if (newline === -1) {
        if (runEnd > i) this.pushFrag(token, i, runEnd, width);
        break;
      }
      // The newline glyph hangs in the cell after the text, then the row ends.
      this.pushFrag(token, i, newline + 1, width + 1);
      this.endRow();
      i = newline + 1;
    }
  }

  /** Where the open row must end inside `piece`'s run [i, runEnd): the unit index to break at. */
  private rowBreak(piece: string, i: number, runEnd: number): number {
    let k = i;
    let used = 0;
    while (k < runEnd) {
      const w = unitCells(piece.charCodeAt(k));
      if (this.column + used + w > this.columns) break;
      used += w;
      k++;
    }
    // Never split a surrogate pair; a cell too narrow for one glyph still takes that glyph.
    if (k > i && unitCells(piece.charCodeAt(k)) === 0) k--;
    if (k === i && this.column === 0) {
      k = i + (unitCells(piece.charCodeAt(i)) === 2 && i + 1 < runEnd ? 2 : 1);
    }
    return k;
  }

  finish(): TokenLayout {
    this.rowFragStart.push(this.fragToken.length);
    return {
      columns: this.columns,
      rowCount: this.rowKind.length,
      rowKind: Uint8Array.from(this.rowKind.toArray()),
      rowSegment: this.rowSegment.toArray(),
      rowItem: this.rowItem.toArray(),
      rowFragStart: this.rowFragStart.toArray(),
      fragToken: this.fragToken.toArray(),
      fragStart: this.fragStart.toArray(),
      fragEnd: this.fragEnd.toArray(),
      fragColumn: this.fragColumn.toArray(),
      tokenFirstRow: this.tokenFirstRow,
    };
  }
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

/**
 * Tells a scrollbar drag or fling through a long list (every frame lands on rows never seen
 * before) from reading-speed scrolling and one-off jumps (find, deep links, chart clicks). While
 * the list moves more than a viewport per scroll event, twice in a row, the view draws rows as
 * text painted into a canvas and restores token boxes once it slows down or settles.
 */
export class FastScrollDetector {
  private lastOffset: number | undefined;
  private wasBigMove = false;

  /**
   * Feeds one scroll position (virtual CSS pixels from the top) and the viewport height (CSS
   * pixels); returns true while scrolling is fast.
   */
  update(offset: number, viewport: number): boolean {
    const isBigMove =
      this.lastOffset !== undefined &&
      viewport > 0 &&
      Math.abs(offset - this.lastOffset) > viewport;
    const isFast = isBigMove && this.wasBigMove;
    this.lastOffset = offset;
    this.wasBigMove = isBigMove;
    return isFast;
  }

  /** Scrolling stopped: the next big move is a one-off jump again. */
  settle(): void {
    this.wasBigMove = false;
  }
}

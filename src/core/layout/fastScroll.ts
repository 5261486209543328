/**
 * Tells a scrollbar drag or fling through a long list (every frame lands on rows never seen
 * before) from reading-speed scrolling and one-off jumps (find, deep links, chart clicks). While
 * the list moves more than a third of its viewport per scroll event, twice in a row (20 screens a
 * second and more: scanning, not reading), the view paints rows into a canvas and restores token
 * boxes once it slows down or settles. Below that speed DOM rows cost less than a frame; above
 * it the rows entering the viewport each frame cost more (see the trajectoryView bench).
 */
export const FAST_FRACTION = 1 / 3;

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
      Math.abs(offset - this.lastOffset) > viewport * FAST_FRACTION;
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

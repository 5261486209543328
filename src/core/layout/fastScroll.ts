/**
 * Tells a scrollbar drag or fling through a long list (every frame lands on rows never seen
 * before) from reading-speed scrolling. While the list moves more than a third of its viewport per
 * scroll event (20 screens a second and more: scanning, not reading), the view paints rows into a
 * canvas, and restores token boxes once it slows down or settles. Below that speed DOM rows cost
 * less than a frame; above it the rows entering the viewport each frame cost more (see the
 * trajectoryView bench). The app's own jumps (find, deep links, chart clicks) are announced with
 * {@link FastScrollDetector.expectJump} and land on token boxes at once.
 */
export const FAST_FRACTION = 1 / 3;

export class FastScrollDetector {
  private lastOffset: number | undefined;
  private isJumpExpected = false;

  /**
   * Feeds one scroll position (virtual CSS pixels from the top) and the viewport height (CSS
   * pixels); returns true while scrolling is fast.
   */
  update(offset: number, viewport: number): boolean {
    const isBigMove =
      this.lastOffset !== undefined &&
      viewport > 0 &&
      Math.abs(offset - this.lastOffset) > viewport * FAST_FRACTION;
    this.lastOffset = offset;
    const isExpected = this.isJumpExpected;
    this.isJumpExpected = false;
    return isBigMove && !isExpected;
  }

  /** The app is about to scroll by itself: the next move, however big, is a jump, not a drag. */
  expectJump(): void {
    this.isJumpExpected = true;
  }

  /** The announced jump never came (the list was already there): the next move is the user's. */
  forgetJump(): void {
    this.isJumpExpected = false;
  }
}

/** Distance in CSS pixels from the bottom within which a scroller still counts as "at the end". */
export const FOLLOW_SLACK_PX = 48;

/**
 * Whether a scroller (all values in CSS pixels) shows its end, so a view following new tokens
 * keeps following; a researcher who scrolled further up than the slack is left where they are.
 */
export function isAtEnd(
  scrollTop: number,
  clientHeight: number,
  scrollHeight: number,
  slackPx = FOLLOW_SLACK_PX,
): boolean {
  return scrollHeight - (scrollTop + clientHeight) <= slackPx;
}

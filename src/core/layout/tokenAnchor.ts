/**
 * The token the view keeps in view through every re-layout (docs/token-view.md, "Keeping the
 * selected token in view"): a deep link's token, or one the view itself jumped to (find, chart,
 * arrow keys). It is held until the reader scrolls on their own; a re-layout (the tokenizer's
 * pieces, a panel above the list, a new width) then brings it back instead of leaving the scroll
 * offset where the old rows had it.
 */
export class TokenAnchor {
  #token: number | undefined;

  constructor(token?: number) {
    this.#token = token;
  }

  /** The anchored token, or undefined once the reader has scrolled away. */
  get token(): number | undefined {
    return this.#token;
  }

  /** The view jumped to `token`: keep it in view from now on. */
  pin(token: number): void {
    this.#token = token;
  }

  /** The reader scrolled (wheel, touch, scrollbar, a click in the list): their place wins. */
  release(): void {
    this.#token = undefined;
  }

  /** A key pressed in the list: the keys the browser scrolls an element by release it. */
  keyPressed(key: string): void {
    if (SCROLL_KEYS.has(key)) this.release();
  }
}

const SCROLL_KEYS: ReadonlySet<string> = new Set([
  "ArrowUp",
  "ArrowDown",
  "PageUp",
  "PageDown",
  "Home",
  "End",
  " ",
]);

/** `token` when it is a position of a trajectory of `tokenCount` tokens, else undefined. */
export function tokenPosition(token: number | undefined, tokenCount: number): number | undefined {
  return token !== undefined && Number.isInteger(token) && token >= 0 && token < tokenCount
    ? token
    : undefined;
}

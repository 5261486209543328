import type { StreamDelta } from "../../src/core/trajectory/streamDelta";
import type { TopLogprob } from "../../src/core/trajectory/types";

/** How long stream steps are gathered into one `delta` event (ms): 20 events a second at most. */
export const DELTA_WINDOW_MS = 50;

/**
 * Gathers a streamed turn's steps into one delta per window. An upstream streams a chunk per token,
 * and one event per token made each token cost a serialization and a socket write per watcher: 32
 * streaming episodes kept the server busy enough to slow everything else down. Each step's
 * elements are appended once, so the work stays linear in the turn's tokens. `flush()` sends what
 * is pending at once (the turn ended: its segment must follow its last delta).
 */
export class DeltaBatcher {
  #ids: number[] = [];
  #logprobs: (number | null)[] = [];
  #top: (readonly TopLogprob[] | null)[] | undefined;
  #text: string[] = [];
  #tokens = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly emit: (delta: StreamDelta) => void,
    private readonly windowMs = DELTA_WINDOW_MS,
  ) {}

  add(delta: StreamDelta): void {
    const held = this.#ids.length;
    if (delta.topLogprobs && !this.#top) this.#top = new Array<null>(held).fill(null);
    for (let i = 0; i < delta.ids.length; i++) {
      this.#ids.push(delta.ids[i] as number);
      this.#logprobs.push(delta.logprobs[i] ?? null);
      this.#top?.push(delta.topLogprobs?.[i] ?? null);
    }
    if (delta.text.length > 0) this.#text.push(delta.text);
    this.#tokens = delta.tokens;
    this.#timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#ids.length === 0 && this.#text.length === 0) return;
    const delta: StreamDelta = {
      ids: this.#ids,
      logprobs: this.#logprobs,
      ...(this.#top ? { topLogprobs: this.#top } : {}),
      text: this.#text.join(""),
      tokens: this.#tokens,
    };
    this.#ids = [];
    this.#logprobs = [];
    this.#top = undefined;
    this.#text = [];
    this.emit(delta);
  }
}

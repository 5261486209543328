import { nextStreamDelta, type StreamDelta } from "../../src/core/trajectory/streamDelta";
import type { FinishReason, TopLogprob } from "../../src/core/trajectory/types";
import type { GenerateResult } from "./normalize";

/** What one stream chunk added to the turn, and the turn's finish reason once it has one. */
export interface StreamStep {
  /** The ids, logprobs, top-k and text this chunk added (none for a chunk that only finishes). */
  readonly delta: StreamDelta;
  readonly finishReason: FinishReason | null;
}

type Logprobs = (number | null)[];
type TopLogprobs = (readonly TopLogprob[] | null)[];
type KeptIds = readonly (readonly number[] | null)[];

/** What one chunk adds beside its ids, aligned with them (undefined: the chunk had none). */
interface Alongside {
  readonly logprobs: readonly (number | null)[] | undefined;
  readonly top: readonly (readonly TopLogprob[] | null)[] | undefined;
  readonly kept: KeptIds | undefined;
}

/**
 * Folds a /generate stream into one turn in work linear in its tokens. Chunks are cumulative by
 * default and deltas under `--incremental-streaming-output` (docs/sglang.md): a delta is appended where it
 * lands, a cumulative chunk contributes only what lies beyond what is held, and nothing held is
 * copied or re-joined per chunk. `completion_tokens` is always the running total, so a chunk
 * carrying fewer ids than that total is a delta; without it, a chunk shorter than what is held, or
 * not extending it, is a delta (that check reads only as far as the chunk itself reaches).
 */
export class StreamFold {
  readonly #ids: number[] = [];
  #logprobs: Logprobs | undefined;
  #top: TopLogprobs | undefined;
  #kept: (readonly number[] | null)[] | undefined;
  /** The text in pieces; joined only when a chunk is long enough to be compared with all of it. */
  #text: string[] = [];
  #textLength = 0;
  #last: GenerateResult | undefined;
  #inputLogprobs: GenerateResult["inputLogprobs"];

  /** Tokens held so far. */
  get tokens(): number {
    return this.#ids.length;
  }

  add(chunk: GenerateResult): StreamStep {
    const held = this.#ids.length;
    const n = chunk.outputIds.length;
    const total = chunk.usage.completionTokens;
    const isDelta =
      this.#last !== undefined &&
      (total !== undefined ? n < total : n < held || !this.#extendsHeld(chunk.outputIds));
    const delta = isDelta ? this.#appendDelta(chunk) : this.#appendCumulative(chunk);
    this.#last = chunk;
    this.#inputLogprobs = chunk.inputLogprobs ?? this.#inputLogprobs;
    return { delta, finishReason: chunk.finishReason };
  }

  /**
   * The turn so far as one result. It copies the arrays and joins the text: call it once, when
   * the stream finished or failed, never per chunk.
   */
  result(): GenerateResult {
    const last = this.#last;
    if (last === undefined) throw new Error("no stream chunk was folded");
    return {
      ...last,
      text: this.#joinedText(),
      outputIds: this.#ids.slice(),
      outputLogprobs: this.#logprobs?.slice(),
      outputTopLogprobs: this.#top?.slice(),
      outputKeptIds: this.#kept?.slice(),
      inputLogprobs: this.#inputLogprobs,
    };
  }

  #extendsHeld(ids: readonly number[]): boolean {
    for (let i = 0; i < this.#ids.length; i++) if (ids[i] !== this.#ids[i]) return false;
    return true;
  }

  #appendCumulative(chunk: GenerateResult): StreamDelta {
    const cursor = { tokens: this.#ids.length, textLength: this.#textLength };
    const step = nextStreamDelta(cursor, {
      text: chunk.text,
      outputIds: chunk.outputIds,
      ...(chunk.outputLogprobs ? { logprobs: chunk.outputLogprobs } : {}),
      ...(chunk.outputTopLogprobs ? { topLogprobs: chunk.outputTopLogprobs } : {}),
    });
    // A cumulative chunk's text is the whole text: held as one piece, no copy.
    this.#text = [chunk.text];
    this.#textLength = chunk.text.length;
    if (!step) return { ids: [], logprobs: [], text: "", tokens: this.#ids.length };
    const held = this.#ids.length;
    this.#push(step.delta.ids, {
      logprobs: chunk.outputLogprobs && step.delta.logprobs,
      top: chunk.outputTopLogprobs && step.delta.topLogprobs,
      kept: chunk.outputKeptIds?.slice(held, held + step.delta.ids.length),
    });
    return step.delta;
  }

  #appendDelta(chunk: GenerateResult): StreamDelta {
    const held = this.#ids.length;
    const ids = chunk.outputIds;
    // The older `--stream-output` made only output_ids incremental; other arrays stayed
    // cumulative, which shows as them covering every id held plus this chunk's.
    const tail = <T>(list: readonly T[] | undefined) =>
      list === undefined ? undefined : list.length === held + ids.length ? list.slice(held) : list;
    const logprobs = tail(chunk.outputLogprobs);
    const top = tail(chunk.outputTopLogprobs);
    this.#push(ids, { logprobs, top, kept: tail(chunk.outputKeptIds) });
    const text = this.#addDeltaText(chunk.text);
    return {
      ids,
      logprobs: ids.map((_, i) => logprobs?.[i] ?? null),
      ...(top ? { topLogprobs: ids.map((_, i) => top[i] ?? null) } : {}),
      text,
      tokens: this.#ids.length,
    };
  }

  /**
   * Text is display only (ids are authoritative); a delta that repeats the whole text so far is
   * indistinguishable from a cumulative chunk and is taken as cumulative. Returns the text added.
   */
  #addDeltaText(text: string): string {
    const isCumulative =
      this.#textLength > 0 &&
      text.length >= this.#textLength &&
      text.startsWith(this.#joinedText());
    if (isCumulative) {
      const added = text.slice(this.#textLength);
      this.#text = [text];
      this.#textLength = text.length;
      return added;
    }
    this.#text.push(text);
    this.#textLength += text.length;
    return text;
  }

  /**
   * Appends ids with their logprobs, top-k and kept sets (null where a chunk had none), keeping
   * them aligned.
   */
  #push(ids: readonly number[], { logprobs, top, kept }: Alongside): void {
    const held = this.#ids.length;
    if (logprobs && !this.#logprobs) this.#logprobs = new Array<number | null>(held).fill(null);
    if (top && !this.#top) this.#top = new Array<readonly TopLogprob[] | null>(held).fill(null);
    if (kept && !this.#kept) this.#kept = new Array<readonly number[] | null>(held).fill(null);
    for (let i = 0; i < ids.length; i++) {
      this.#ids.push(ids[i] as number);
      this.#logprobs?.push(logprobs?.[i] ?? null);
      this.#top?.push(top?.[i] ?? null);
      this.#kept?.push(kept?.[i] ?? null);
    }
  }

  #joinedText(): string {
    if (this.#text.length > 1) this.#text = [this.#text.join("")];
    return this.#text[0] ?? "";
  }
}

import type {
  FinishReason,
  GenerateCall,
  Segment,
  ToolCall,
  TopLogprob,
  Trajectory,
  TrajectorySource,
} from "../trajectory/types";

/** Tokens the ledger did not produce itself (initial prompt, tool results, a later user turn). */
export interface InputAppend {
  readonly tokenIds: readonly number[];
  /** Prompt-scoring logprobs when the server returned them; null per token otherwise. */
  readonly logprobs?: readonly (number | null)[];
  readonly text?: string;
}

/** One `/generate` response, exactly as returned: `outputIds` keep the stop token. */
export interface ModelAppend {
  readonly outputIds: readonly number[];
  /** One per output token; null tolerated (some SGLang versions omit the first). */
  readonly logprobs: readonly (number | null)[];
  readonly topLogprobs?: readonly (readonly TopLogprob[] | null)[];
  readonly keptTokenIds?: readonly (readonly number[] | null)[];
  readonly text?: string;
  readonly finishReason?: FinishReason;
  readonly toolCalls?: readonly ToolCall[];
  /** The call that produced it; its inputLen must equal the ledger length (prefix invariant). */
  readonly call?: GenerateCall;
}

/** Fields that may be attached to a segment after it was appended (its tokens never change). */
export type SegmentAnnotation = Pick<Segment, "toolCalls" | "cutoff" | "cutoffReason" | "edited">;

/** Everything of a Trajectory the ledger does not own. */
export type TrajectoryMeta = Omit<
  Trajectory,
  "segments" | "calls" | "format" | "source" | "metadata"
> & {
  readonly format?: string;
  readonly source?: TrajectorySource;
  readonly metadata?: Readonly<Record<string, unknown>>;
};

function checkTokenIds(what: string, ids: readonly number[]): void {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id === undefined || !Number.isInteger(id) || id < 0) {
      throw new Error(`${what}: token_ids[${i}] is ${String(id)}, not a non-negative integer`);
    }
  }
}

function checkLength(what: string, field: string, got: number, want: number): void {
  if (got !== want) {
    throw new Error(`${what}: ${field} has ${got} entries but there are ${want} token ids`);
  }
}

/**
 * The exact token record of one episode (TITO). Segments are append-only; the flat views grow by
 * push, so an append costs O(new tokens) and nothing is ever re-encoded or re-concatenated.
 * Turn numbers: the initial prompt is 0, model segment k is turn k, and the tool (or user) segment
 * that follows it shares turn k (it answers that response).
 */
export class TitoLedger {
  private readonly segments: Segment[] = [];
  private readonly ids: number[] = [];
  private readonly mask: (0 | 1)[] = [];
  private readonly lps: (number | null)[] = [];
  private readonly info: [boolean, number][] = [];
  private readonly calls: GenerateCall[] = [];
  private modelTurns = 0;

  /** Total tokens held (token-index space). */
  get length(): number {
    return this.ids.length;
  }

  /** Appends the initial prompt or a later user turn (mask 0); empty input creates no segment. */
  appendPrompt(input: InputAppend): Segment | undefined {
    return this.appendInput("prompt", input);
  }

  /** Appends rendered tool results plus the next generation prompt (mask 0); empty is ignored. */
  appendTool(input: InputAppend): Segment | undefined {
    if (this.segments.length === 0 && input.tokenIds.length > 0) {
      throw new Error("tool segment before any prompt: the first segment must be a prompt");
    }
    return this.appendInput("tool", input);
  }

  /** Appends one model response (mask 1) and records its call; zero output tokens add no segment. */
  appendModel(output: ModelAppend): Segment | undefined {
    const what = `model segment ${this.segments.length}`;
    if (this.segments.length === 0) {
      throw new Error(
        `${what}: model output before any prompt: the first segment must be a prompt`,
      );
    }
    const n = output.outputIds.length;
    checkTokenIds(what, output.outputIds);
    checkLength(what, "logprobs", output.logprobs.length, n);
    if (output.topLogprobs) checkLength(what, "topLogprobs", output.topLogprobs.length, n);
    if (output.keptTokenIds) checkLength(what, "keptTokenIds", output.keptTokenIds.length, n);
    if (output.call) this.recordCall(output.call, n);
    if (n === 0) return undefined;
    this.modelTurns += 1;
    const segment: Segment = {
      kind: "model",
      turn: this.modelTurns,
      tokenIds: output.outputIds.slice(),
      lossMask: new Array<1>(n).fill(1),
      logprobs: output.logprobs.slice(),
      ...(output.topLogprobs ? { topLogprobs: output.topLogprobs.slice() } : {}),
      ...(output.keptTokenIds ? { keptTokenIds: output.keptTokenIds.slice() } : {}),
      ...(output.text === undefined ? {} : { text: output.text }),
      ...(output.toolCalls ? { toolCalls: output.toolCalls } : {}),
      ...(output.finishReason ? { finishReason: output.finishReason } : {}),
    };
    this.push(segment, 1);
    return segment;
  }

  /** Attaches tool calls / results or the cutoff mark to segment `index` (segment-index space). */
  annotate(index: number, annotation: SegmentAnnotation): Segment {
    const segment = this.segments[index];
    if (!segment) {
      throw new Error(`annotate: no segment ${index} (the ledger has ${this.segments.length})`);
    }
    const next: Segment = { ...segment, ...annotation };
    this.segments[index] = next;
    return next;
  }

  /** Segment `index` as it stands now (annotations included), without copying the others. */
  segmentAt(index: number): Segment | undefined {
    return this.segments[index];
  }

  /** Number of segments held. */
  get segmentCount(): number {
    return this.segments.length;
  }

  /** Index of the last segment, or -1 when empty (segment-index space). */
  get lastSegmentIndex(): number {
    return this.segments.length - 1;
  }

  /**
   * A snapshot of all tokens, to send as the next `/generate` `input_ids`. One O(total) copy per
   * call (the request body's JSON is O(total) anyway); callers may keep it across later appends.
   */
  inputIds(): number[] {
    return this.ids.slice();
  }

  /** Flat token ids (token-index space); a live read-only view that grows with appends. */
  tokenIds(): readonly number[] {
    return this.ids;
  }

  /** Flat loss mask, 1 exactly on model output tokens; live read-only view. */
  lossMask(): readonly (0 | 1)[] {
    return this.mask;
  }

  /** Flat logprobs, null where none was recorded; live read-only view. */
  logprobs(): readonly (number | null)[] {
    return this.lps;
  }

  /** strands-style `[isOutput, length]` per segment; live read-only view. */
  segmentInfo(): readonly (readonly [boolean, number])[] {
    return this.info;
  }

  /** The trajectory so far; segments and calls are copied, so later appends do not change it. */
  toTrajectory(meta: TrajectoryMeta): Trajectory {
    return {
      format: "rollout-lens/v1",
      source: { kind: "live" },
      metadata: {},
      ...meta,
      segments: this.segments.slice(),
      calls: this.calls.slice(),
    };
  }

  private recordCall(call: GenerateCall, outputLen: number): void {
    if (call.inputLen !== this.ids.length) {
      throw new Error(
        `call ${call.rid}: inputLen ${call.inputLen} but the ledger holds ${this.ids.length} tokens: ` +
          "the request was not built from this ledger (prefix invariant broken)",
      );
    }
    if (call.outputLen !== outputLen) {
      throw new Error(`call ${call.rid}: outputLen ${call.outputLen} but ${outputLen} output ids`);
    }
    this.calls.push(call);
  }

  private appendInput(kind: "prompt" | "tool", input: InputAppend): Segment | undefined {
    const what = `${kind} segment ${this.segments.length}`;
    const n = input.tokenIds.length;
    checkTokenIds(what, input.tokenIds);
    if (input.logprobs) checkLength(what, "logprobs", input.logprobs.length, n);
    if (n === 0) return undefined;
    const segment: Segment = {
      kind,
      turn: this.modelTurns,
      tokenIds: input.tokenIds.slice(),
      lossMask: new Array<0>(n).fill(0),
      logprobs: input.logprobs ? input.logprobs.slice() : new Array<null>(n).fill(null),
      ...(input.text === undefined ? {} : { text: input.text }),
    };
    this.push(segment, 0);
    return segment;
  }

  private push(segment: Segment, mask: 0 | 1): void {
    this.segments.push(segment);
    this.info.push([mask === 1, segment.tokenIds.length]);
    for (let i = 0; i < segment.tokenIds.length; i++) {
      this.ids.push(segment.tokenIds[i] ?? 0);
      this.mask.push(mask);
      this.lps.push(segment.logprobs[i] ?? null);
    }
  }
}

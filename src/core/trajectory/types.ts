/**
 * The one data model everything revolves around: the exact token sequence an agent episode
 * produced, cut into segments. Flat views (token_ids, loss_mask, slime/atropos arrays) are derived
 * from segments by the format adapters and never stored twice.
 */

/** Index of a token inside a whole trajectory (0-based). */
export type TokenIndex = number & { readonly __brand: "TokenIndex" };
/** Offset in UTF-16 code units inside a decoded text. */
export type CharOffset = number & { readonly __brand: "CharOffset" };
/** Offset in bytes inside the UTF-8 encoding of a decoded text. */
export type ByteOffset = number & { readonly __brand: "ByteOffset" };

export type SegmentKind = "prompt" | "model" | "tool";

export type TrajectoryStatus = "running" | "completed" | "truncated" | "aborted";

/** Why a model turn ended, as a typed union (SGLang `finish_reason.type`). */
export type FinishReason =
  | { readonly type: "stop"; readonly matched?: number | string | null }
  | { readonly type: "length"; readonly length?: number }
  | {
      readonly type: "abort";
      readonly message?: string;
      /** Newer SGLang servers say which HTTP status the abort carries (e.g. 503 for overload). */
      readonly statusCode?: number;
      readonly errType?: string;
    };

export interface TopLogprob {
  readonly tokenId: number;
  readonly logprob: number;
}

/** One parsed tool call inside a model segment; `span` is in characters of the segment text. */
export interface ToolCall {
  /** Per-response id, e.g. `call_0000` (restarts in every response). */
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The raw text between the call markers. */
  readonly raw: string;
  /** [start, end) character offsets of the whole call markup inside the segment text. */
  readonly span: readonly [number, number];
  /** Set when the call could not be parsed; the model is fed back an error result. */
  readonly error?: string;
  /** The tool's reply, when it ran. */
  readonly result?: string;
  readonly resultIsError?: boolean;
}

export interface Segment {
  readonly kind: SegmentKind;
  /** 0 = initial prompt; the k-th model segment is turn k, the tool segment after it shares k. */
  readonly turn: number;
  readonly tokenIds: readonly number[];
  /** 1 only where the policy is trained (model output). */
  readonly lossMask: readonly (0 | 1)[];
  /**
   * True on a model segment the record does not train (mask 0 on every token): tokens the model
   * produced that the framework excluded (slime's drift demotion, miles' shared completions).
   * Never a tool segment (docs/format.md "Reading other formats").
   */
  readonly untrained?: boolean;
  /** null where none was recorded (prompt and tool tokens, usually). */
  readonly logprobs: readonly (number | null)[];
  readonly topLogprobs?: readonly (readonly TopLogprob[] | null)[];
  /**
   * Per token of a model segment, the ids the sampler kept (its top-p/top-k set), null where none
   * was returned; only from a server that returns them (docs/sglang.md "Kept sets").
   */
  readonly keptTokenIds?: readonly (readonly number[] | null)[];
  /** Decoded text of tokenIds, when known (special tokens kept). */
  readonly text?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly finishReason?: FinishReason;
  /** True on the segment where the iteration limit (or a length stop / abort) ended the episode. */
  readonly cutoff?: boolean;
  readonly cutoffReason?: string;
  /** True on a tool segment whose result text a branch replaced before it ran (fork edit). */
  readonly edited?: boolean;
}

/** Where a branch comes from: the trajectory it was forked from and the token it departs at. */
export interface Lineage {
  /** The parent's id (an episode id, or the id of the file row). */
  readonly parentId: string;
  /** Token index N: the branch holds the parent's ids 0..N-1 (tool segment edited, if any). */
  readonly forkIndex: number;
  /** The replaced tool results (one per call of the tool segment at N), when the fork edited them. */
  readonly editedToolResults?: readonly string[];
}

/** A failed attempt of a `/generate` call that was retried (docs/sglang.md, retries). */
export interface CallRetry {
  /** The rid the failed attempt ran under (each retry gets a fresh one). */
  readonly rid: string;
  readonly upstream?: string;
  /** Why it failed, as the client typed it (connection, timeout, HTTP status, …). */
  readonly error: string;
  /** How long the client waited before the next attempt (ms). */
  readonly backoffMs: number;
}

/** One `/generate` call of a live episode. */
export interface GenerateCall {
  readonly rid: string;
  readonly inputLen: number;
  readonly outputLen: number;
  readonly finishReason: FinishReason | null;
  readonly cachedTokens?: number;
  readonly e2eLatency?: number;
  readonly weightVersion?: string;
  /** Base URL of the upstream that ran the call (live episodes with several upstreams). */
  readonly upstream?: string;
  /** The attempts that failed before this one succeeded, in order; absent when the first did. */
  readonly retries?: readonly CallRetry[];
}

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
  readonly [key: string]: unknown;
}

export interface TrajectorySource {
  /** `live`, or the file name it was read from. */
  readonly kind: "live" | "file";
  readonly path?: string;
  /** 1-based line number inside the file. */
  readonly line?: number;
  /** Row inside a group line (atropos), 0 otherwise. */
  readonly row?: number;
}

export interface Trajectory {
  readonly id: string;
  readonly source: TrajectorySource;
  /** Format the trajectory was read from (`rollout-lens/v1`, `slime`, `atropos`, `strands`, `verl`). */
  readonly format: string;
  readonly createdAt?: string;
  readonly model?: string;
  readonly tokenizer?: string;
  readonly samplingParams?: Readonly<Record<string, unknown>>;
  readonly status: TrajectoryStatus;
  /**
   * Why the episode ended, in words (the `reason` of its `end` event): the model answered, the
   * cutoff that truncated it, the abort (user, upstream, crash recovery). Absent while it runs and
   * in formats that record none.
   */
  readonly endReason?: string;
  readonly reward?: number | null;
  readonly segments: readonly Segment[];
  readonly calls?: readonly GenerateCall[];
  readonly messages?: readonly ChatMessage[];
  /** Group key for GRPO-style groups (atropos line, slime group_index). */
  readonly group?: string;
  /**
   * Value the source stored at untrained (mask 0) response positions instead of a logprob (slime
   * writes 0.0). Those positions read as null; writers of that format put the value back.
   */
  readonly logprobPlaceholder?: number;
  /**
   * Named per-token logprob lanes next to the sampled `logprobs` (e.g. `trainer`, `reference`,
   * `rescored`), each as long as the whole trajectory (token index space), null where absent.
   * Helpers in `lanes.ts`; the name `sampled` is reserved for the segments' own logprobs.
   */
  readonly logprobLanes?: Readonly<Record<string, LaneValues>>;
  /** Where each lane came from; lanes read from another format's field may have none. */
  readonly logprobLaneInfo?: Readonly<Record<string, LaneInfo>>;
  /** Set on a branch: its parent and fork index (rollout-lens/v1 `parent_id`, `fork_index`). */
  readonly lineage?: Lineage;
  /** Free-form metadata and unknown keys, kept verbatim. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One lane: a logprob per token of the trajectory, null where the lane has none. */
export type LaneValues = readonly (number | null)[];

/** Provenance of a logprob lane (`logprob_lane_info` in rollout-lens/v1). */
export interface LaneInfo {
  /** What produced it: `sglang /generate rescore`, `atropos ref_logprobs`, a trainer name... */
  readonly source: string;
  readonly model?: string;
  readonly weightVersion?: string;
  /** ISO-8601 time the lane was computed. */
  readonly createdAt: string;
}

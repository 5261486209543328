import type { Segment, SegmentKind, TokenIndex, Trajectory } from "../trajectory/types";

/** The flat per-token arrays a view needs, derived once from segments (never stored twice). */
export interface FlatTrajectory {
  readonly tokenCount: number;
  readonly tokenIds: Int32Array;
  /** Natural-log probability per token; NaN where none was recorded. */
  readonly logprobs: Float64Array;
  readonly lossMask: Uint8Array;
  /** Token index where each segment starts; length = segments + 1 (last = tokenCount). */
  readonly segmentStarts: Int32Array;
  readonly segmentKinds: readonly SegmentKind[];
}

function segmentLabel(segment: Segment, index: number): string {
  return `segment ${index} (${segment.kind}, turn ${segment.turn})`;
}

/** Flattens a trajectory's segments into per-token typed arrays (token-index space). */
export function flattenTrajectory(trajectory: Trajectory): FlatTrajectory {
  const { segments } = trajectory;
  const segmentStarts = new Int32Array(segments.length + 1);
  let total = 0;
  segments.forEach((segment, s) => {
    const n = segment.tokenIds.length;
    if (segment.lossMask.length !== n) {
      throw new Error(
        `trajectory ${trajectory.id}: ${segmentLabel(segment, s)} has ${segment.lossMask.length} lossMask entries for ${n} tokens`,
      );
    }
    if (segment.logprobs.length !== n) {
      throw new Error(
        `trajectory ${trajectory.id}: ${segmentLabel(segment, s)} has ${segment.logprobs.length} logprobs for ${n} tokens`,
      );
    }
    segmentStarts[s] = total;
    total += n;
  });
  segmentStarts[segments.length] = total;

  const tokenIds = new Int32Array(total);
  const logprobs = new Float64Array(total);
  const lossMask = new Uint8Array(total);
  // Plain loops: this runs before the first paint of a view, on up to millions of tokens.
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s];
    if (!segment) continue;
    const base = segmentStarts[s] ?? 0;
    const ids = segment.tokenIds;
    const lps = segment.logprobs;
    const mask = segment.lossMask;
    tokenIds.set(ids, base);
    lossMask.set(mask, base);
    for (let i = 0; i < ids.length; i++) {
      const lp = lps[i];
      logprobs[base + i] = lp === null || lp === undefined ? Number.NaN : lp;
    }
  }
  return {
    tokenCount: total,
    tokenIds,
    logprobs,
    lossMask,
    segmentStarts,
    segmentKinds: segments.map((segment) => segment.kind),
  };
}

/**
 * Segment index holding a token (binary search over segment starts, token-index space);
 * `segmentStarts` has one entry a segment plus the token count, as FlatTrajectory's.
 */
export function segmentOfToken(
  segmentStarts: ArrayLike<number>,
  token: TokenIndex | number,
): number {
  let lo = 0;
  let hi = segmentStarts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((segmentStarts[mid] ?? 0) <= token) lo = mid;
    else hi = mid - 1;
  }
  // Empty segments share a start with the next one; the token belongs to the last of them.
  return lo;
}

/** Display pieces that need no tokenizer: `#<id>` per token, in token-index order. */
export function placeholderPieces(tokenIds: Int32Array): string[] {
  return Array.from(tokenIds, (id) => `#${id}`);
}

/** Why a segment ended the episode (iteration limit, length stop, abort), or undefined. */
export function cutoffReason(segment: Segment): string | undefined {
  if (segment.cutoff) return segment.cutoffReason ?? "iteration limit reached";
  switch (segment.finishReason?.type) {
    case "length":
      return segment.finishReason.length === undefined
        ? "length: max tokens reached"
        : `length: max tokens (${segment.finishReason.length}) reached`;
    case "abort":
      return segment.finishReason.message ? `aborted: ${segment.finishReason.message}` : "aborted";
    default:
      return undefined;
  }
}

import type { CallRetry, FinishReason, GenerateCall, Segment } from "./types";

/** One `/generate` call as the calls panel shows it. */
export interface CallRow {
  /** 0-based position in `calls[]`. */
  readonly index: number;
  readonly rid: string;
  readonly upstream?: string;
  readonly inputLen: number;
  readonly newTokens: number;
  readonly cachedTokens?: number;
  /** cached / input tokens, 0..1; absent when the upstream did not report cached tokens. */
  readonly cacheHitRate?: number;
  /** End-to-end latency in seconds, as the upstream reported it. */
  readonly latencySeconds?: number;
  readonly finishReason: FinishReason | null;
  readonly weightVersion?: string;
  /** The model segment the call produced (segment index), absent when it produced no tokens. */
  readonly segmentIndex?: number;
  /** Index of that segment's first token in the whole trajectory. */
  readonly firstToken?: number;
  /** Attempts the call took: its failed ones plus the one that answered. */
  readonly attempts: number;
  /** The failed attempts, in order (rid, upstream, error, backoff). */
  readonly retries: readonly CallRetry[];
}

/**
 * The attempts cell: "1", or "3" and, per failed attempt, its rid, error and the backoff after it
 * (the cell's title holds the lines).
 */
export function retriesText(row: Pick<CallRow, "attempts" | "retries">): {
  readonly cell: string;
  readonly lines: readonly string[];
} {
  if (row.retries.length === 0) return { cell: String(row.attempts), lines: [] };
  const backoff = row.retries.reduce((sum, r) => sum + r.backoffMs, 0);
  return {
    cell: `${row.attempts} (${row.retries.length} failed, ${formatMs(backoff)} backoff)`,
    lines: row.retries.map(
      (r, k) =>
        `attempt ${k + 1}: ${r.rid}${r.upstream === undefined ? "" : ` on ${r.upstream}`} failed (${r.error}); waited ${formatMs(r.backoffMs)}`,
    ),
  };
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The rows of the calls panel: one per call, each tied to the model segment it produced. A call's
 * output starts where its input ends (the TITO prefix invariant), so the segment is the model
 * segment starting at token `inputLen` with `outputLen` tokens; a call that matches none (no
 * output, or a file whose calls and segments disagree) has no segment rather than a wrong one.
 */
export function callRows(trajectory: {
  readonly segments: readonly Segment[];
  readonly calls?: readonly GenerateCall[];
}): CallRow[] {
  const modelAt = new Map<number, { index: number; length: number }>();
  let offset = 0;
  for (const [index, segment] of trajectory.segments.entries()) {
    if (segment.kind === "model") modelAt.set(offset, { index, length: segment.tokenIds.length });
    offset += segment.tokenIds.length;
  }
  return (trajectory.calls ?? []).map((call, index) => {
    const produced = modelAt.get(call.inputLen);
    const isProduced =
      produced !== undefined && call.outputLen > 0 && produced.length === call.outputLen;
    const cached = call.cachedTokens;
    return {
      index,
      rid: call.rid,
      ...(call.upstream === undefined ? {} : { upstream: call.upstream }),
      inputLen: call.inputLen,
      newTokens: call.outputLen,
      ...(cached === undefined ? {} : { cachedTokens: cached }),
      ...(cached === undefined || call.inputLen === 0
        ? {}
        : { cacheHitRate: Math.min(1, cached / call.inputLen) }),
      ...(call.e2eLatency === undefined ? {} : { latencySeconds: call.e2eLatency }),
      finishReason: call.finishReason,
      ...(call.weightVersion === undefined ? {} : { weightVersion: call.weightVersion }),
      ...(isProduced ? { segmentIndex: produced.index, firstToken: call.inputLen } : {}),
      attempts: (call.retries?.length ?? 0) + 1,
      retries: call.retries ?? [],
    };
  });
}

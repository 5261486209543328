/**
 * Iteration limits as strands-sglang's limiter applies them (docs/tito.md): a response with
 * n ≥ 1 tool calls counts as ONE iteration and n calls; the check runs after that response's tools
 * ran, so exactly N iterations complete and their results are recorded but never tokenized.
 */

export interface IterationLimits {
  /** Max tool iterations; parallel calls in one response count once. 0 still completes one. */
  readonly maxToolIterations?: number;
  /** Max tool calls in total; a parallel batch may overshoot it (checked after the batch). */
  readonly maxToolCalls?: number;
  /** Calls beyond this many in one response are not executed and get CANCELLED_RESULT. */
  readonly maxParallelToolCalls?: number;
}

export interface IterationCounts {
  readonly toolIterations: number;
  readonly toolCalls: number;
}

export const noIterations: IterationCounts = { toolIterations: 0, toolCalls: 0 };

export type CutoffReason = "max_tool_iterations" | "max_tool_calls";

export interface TurnDecision {
  /** Counts after this response (every parsed call counts, cancelled ones included). */
  readonly counts: IterationCounts;
  /** The first `execute` calls (in call order) run. */
  readonly execute: number;
  /** The calls after them are not run; their result is `cancelledResult(limit)`, tokenized as usual. */
  readonly cancelled: number;
  /**
   * Set when the episode ends after this response's tools ran: mark the cutoff on the model
   * segment, keep the results in metadata and do NOT tokenize them (status `truncated`).
   */
  readonly cutoff?: { readonly reason: CutoffReason; readonly message: string };
}

function checkLimit(field: keyof IterationLimits, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
    throw new Error(`iteration limits: ${field} is ${value}, not a non-negative integer`);
  }
}

/** The tool result given to calls cancelled by `maxParallelToolCalls` (strands-sglang's text). */
export function cancelledResult(maxParallelToolCalls: number): string {
  return `Max parallel tool calls (${maxParallelToolCalls}) reached. This tool call was not executed.`;
}

/** Decides what happens after a model response with `callCount` parsed calls (errors included). */
export function decideTurn(
  limits: IterationLimits,
  counts: IterationCounts,
  callCount: number,
): TurnDecision {
  checkLimit("maxToolIterations", limits.maxToolIterations);
  checkLimit("maxToolCalls", limits.maxToolCalls);
  checkLimit("maxParallelToolCalls", limits.maxParallelToolCalls);
  if (!Number.isInteger(callCount) || callCount < 0) {
    throw new Error(`decideTurn: callCount is ${callCount}, not a non-negative integer`);
  }
  // No call: nothing is counted and no tool result lands, so the limiter never fires.
  if (callCount === 0) return { counts, execute: 0, cancelled: 0 };
  const next: IterationCounts = {
    toolIterations: counts.toolIterations + 1,
    toolCalls: counts.toolCalls + callCount,
  };
  const execute =
    limits.maxParallelToolCalls === undefined
      ? callCount
      : Math.min(callCount, limits.maxParallelToolCalls);
  const decision = { counts: next, execute, cancelled: callCount - execute };
  const { maxToolIterations: maxIters, maxToolCalls: maxCalls } = limits;
  if (maxIters !== undefined && next.toolIterations >= maxIters) {
    const message = `Max tool iterations (${maxIters}) reached (parallel tool calls count as one iteration)`;
    return { ...decision, cutoff: { reason: "max_tool_iterations", message } };
  }
  if (maxCalls !== undefined && next.toolCalls >= maxCalls) {
    const message = `Max tool calls (${maxCalls}) reached`;
    return { ...decision, cutoff: { reason: "max_tool_calls", message } };
  }
  return decision;
}

import type { RowSummary } from "../core/files/rowSummary";

/** A row summary with neutral defaults for query/group/series tests; override any field. */
export function row(index: number, overrides: Partial<RowSummary> = {}): RowSummary {
  return {
    index,
    line: index + 1,
    row: 0,
    id: `r${index}`,
    format: "rollout-lens/v1",
    status: "completed",
    reward: undefined,
    totalTokens: 100,
    trainableTokens: 50,
    turns: 1,
    toolCalls: 0,
    toolErrors: 0,
    finishReason: "stop",
    meanLogprob: undefined,
    group: undefined,
    advantage: undefined,
    searchText: `r${index}`,
    ...overrides,
  };
}

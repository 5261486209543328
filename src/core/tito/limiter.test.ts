import { describe, expect, it } from "vitest";
import { cancelledResult, decideTurn, type IterationLimits, noIterations } from "./limiter";

/** Runs responses with the given call counts until a cutoff; returns how many responses ran and the final counts. */
function simulate(limits: IterationLimits, callsPerResponse: readonly number[]) {
  let counts = noIterations;
  for (const [i, calls] of callsPerResponse.entries()) {
    const decision = decideTurn(limits, counts, calls);
    counts = decision.counts;
    if (calls === 0) return { responses: i + 1, counts, end: "completed" as const };
    if (decision.cutoff) return { responses: i + 1, counts, end: decision.cutoff.reason };
  }
  return { responses: callsPerResponse.length, counts, end: "running" as const };
}

const looping = new Array<number>(10).fill(1);

describe("decideTurn", () => {
  it.each([
    [
      "max 3, one call per response: exactly 3 iterations",
      { maxToolIterations: 3 },
      looping,
      3,
      3,
      3,
    ],
    ["max 1", { maxToolIterations: 1 }, looping, 1, 1, 1],
    ["max 0 still completes one iteration", { maxToolIterations: 0 }, looping, 1, 1, 1],
    ["parallel calls count once", { maxToolIterations: 2 }, [3, 2, 1], 2, 2, 5],
    ["no limit runs until the model stops", {}, [1, 2, 0], 3, 2, 3],
    ["stopping before the limit completes", { maxToolIterations: 5 }, [1, 0], 2, 1, 1],
    ["the call limit can be overshot by a batch", { maxToolCalls: 3 }, [2, 2, 1], 2, 2, 4],
  ])("%s", (_label, limits, responses, wantResponses, wantIterations, wantCalls) => {
    const run = simulate(limits, responses);
    expect(run.responses).toBe(wantResponses);
    expect(run.counts).toEqual({ toolIterations: wantIterations, toolCalls: wantCalls });
  });

  it("ends truncated with strands' message on the iteration limit", () => {
    const decision = decideTurn({ maxToolIterations: 3 }, { toolIterations: 2, toolCalls: 4 }, 2);
    expect(decision).toEqual({
      counts: { toolIterations: 3, toolCalls: 6 },
      execute: 2,
      cancelled: 0,
      cutoff: {
        reason: "max_tool_iterations",
        message: "Max tool iterations (3) reached (parallel tool calls count as one iteration)",
      },
    });
  });

  it("checks iterations before calls when both trip", () => {
    const decision = decideTurn({ maxToolIterations: 1, maxToolCalls: 1 }, noIterations, 1);
    expect(decision.cutoff?.reason).toBe("max_tool_iterations");
    expect(decideTurn({ maxToolCalls: 2 }, noIterations, 2).cutoff?.message).toBe(
      "Max tool calls (2) reached",
    );
  });

  it("cancels calls beyond maxParallelToolCalls but counts them", () => {
    const decision = decideTurn({ maxParallelToolCalls: 2 }, noIterations, 5);
    expect(decision).toEqual({
      counts: { toolIterations: 1, toolCalls: 5 },
      execute: 2,
      cancelled: 3,
    });
    expect(cancelledResult(2)).toBe(
      "Max parallel tool calls (2) reached. This tool call was not executed.",
    );
  });

  it("counts nothing for a response without calls", () => {
    const counts = { toolIterations: 2, toolCalls: 2 };
    expect(decideTurn({ maxToolIterations: 2 }, counts, 0)).toEqual({
      counts,
      execute: 0,
      cancelled: 0,
    });
  });

  it.each([
    [
      { maxToolIterations: -1 },
      1,
      "iteration limits: maxToolIterations is -1, not a non-negative integer",
    ],
    [{ maxToolCalls: 1.5 }, 1, "iteration limits: maxToolCalls is 1.5, not a non-negative integer"],
    [{}, -2, "decideTurn: callCount is -2, not a non-negative integer"],
  ])("rejects bad input %j / %i", (limits, calls, message) => {
    expect(() => decideTurn(limits, noIterations, calls)).toThrow(message);
  });
});

import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../core/trajectory/types";
import { MAX_BRANCHES } from "../../core/wire/episodes";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { type ForkFields, forkRequest, toolResultsAt } from "./forkRequest";

const blank: ForkFields = { temperature: "", maxNewTokens: "", maxIterations: "", k: "1" };
const at = { episode: "ep1", index: 7 } as const;

describe("forkRequest", () => {
  it("sends only what was typed: blank or non-numeric fields are left out", () => {
    expect(forkRequest({ ...blank, temperature: "abc", maxNewTokens: " " }, [], [], at)).toEqual({
      fork: { episode: "ep1", index: 7 },
      n: 1,
      sampling_params: {},
    });
  });

  it("reads numbers, truncating token and iteration counts", () => {
    const fields = { temperature: "0.7", maxNewTokens: "64.9", maxIterations: "3.5", k: "2" };
    expect(forkRequest(fields, [], [], at)).toEqual({
      fork: { episode: "ep1", index: 7 },
      n: 2,
      sampling_params: { temperature: 0.7, max_new_tokens: 64 },
      max_iterations: 3,
    });
  });

  it("keeps k between 1 and MAX_BRANCHES", () => {
    expect(forkRequest({ ...blank, k: "0" }, [], [], at).n).toBe(1);
    expect(forkRequest({ ...blank, k: "-3" }, [], [], at).n).toBe(1);
    expect(forkRequest({ ...blank, k: "" }, [], [], at).n).toBe(1);
    expect(forkRequest({ ...blank, k: String(MAX_BRANCHES + 5) }, [], [], at).n).toBe(MAX_BRANCHES);
  });

  it("sends tool results only when edited: one as a string, several as a list", () => {
    expect(forkRequest(blank, ["same"], ["same"], at).fork).not.toHaveProperty("tool_result");
    expect(forkRequest(blank, ["new"], ["old"], at).fork.tool_result).toBe("new");
    expect(forkRequest(blank, ["a", "B"], ["a", "b"], at).fork.tool_result).toEqual(["a", "B"]);
  });

  it("forks a server file's row by file, line and row", () => {
    const row = { file: "srv-f1", line: 3, row: 0, index: 12 };
    expect(forkRequest(blank, [], [], row).fork).toEqual(row);
  });
});

const call = (id: string, result: string): ToolCall => ({
  id,
  name: "calc",
  arguments: {},
  raw: "{}",
  span: [0, 2],
  result,
});

describe("toolResultsAt", () => {
  const parent = trajectory([
    promptSegment([1, 2, 3]),
    modelSegment([4, 5], 1, {
      toolCalls: [call("call_0000", "first"), call("call_0001", "second")],
    }),
    toolSegment([6, 7], 1, { text: "the tool turn" }),
    modelSegment([8], 2),
    toolSegment([9], 2, { text: "plain" }),
  ]);

  it("gives the results of the calls the tool segment starting at the index answers", () => {
    expect(toolResultsAt(parent, 5)).toEqual(["first", "second"]);
  });

  it("gives the segment's text when the model turn before it made no parsed call", () => {
    expect(toolResultsAt(parent, 8)).toEqual(["plain"]);
  });

  it("gives one empty result for an index that starts no segment", () => {
    expect(toolResultsAt(parent, 6)).toEqual([""]);
  });
});

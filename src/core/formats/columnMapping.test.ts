import { describe, expect, it } from "vitest";
import { flattenSegments } from "../trajectory/flatten";
import {
  applyColumnMapping,
  mappingProblem,
  schemaKey,
  suggestColumnMapping,
} from "./columnMapping";
import { readRolloutValue } from "./readRolloutLine";

const P = [151644, 872, 198, 16];
const R = [19, 151645];

function read(value: unknown) {
  const result = readRolloutValue(value, 1);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  return result.trajectories[0];
}

describe("column mapping for unknown tables", () => {
  it("remembers per schema, whatever the column order", () => {
    expect(schemaKey(["b", "a"])).toBe(schemaKey(["a", "b"]));
    expect(schemaKey(["a"])).not.toBe(schemaKey(["a", "b"]));
  });

  it("suggests a split layout from prompt/completion id columns", () => {
    expect(
      suggestColumnMapping(["prompt_ids", "completion_ids", "completion_logprobs", "reward", "x"]),
    ).toEqual({
      layout: "split",
      promptTokenIds: "prompt_ids",
      responseTokenIds: "completion_ids",
      responseLogprobs: "completion_logprobs",
      responseMask: undefined,
      reward: "reward",
    });
    expect(suggestColumnMapping(["text", "score"])).toBeUndefined();
  });

  it("a split row reads as prompt + model segments with its logprobs and reward", () => {
    const row = {
      prompt_ids: P,
      completion_ids: R,
      completion_logprobs: [-0.5, -0.25],
      reward: 1,
      env: "math",
    };
    const mapping = suggestColumnMapping(Object.keys(row));
    if (!mapping) throw new Error("no mapping");
    const t = read(applyColumnMapping(row, mapping));
    expect(t?.segments.map((s) => [s.kind, s.tokenIds])).toEqual([
      ["prompt", P],
      ["model", R],
    ]);
    expect(t?.segments[1]?.logprobs).toEqual([-0.5, -0.25]);
    expect(t?.reward).toBe(1);
    expect(t?.metadata.env).toBe("math");
  });

  it("a full-length row cuts the prompt at the first trained token; booleans are masks too", () => {
    const row = {
      input_ids: [...P, ...R, 7, 8],
      action_mask: [false, false, false, false, true, true, false, true],
      logprobs: [0, 0, 0, 0, -1, -2, -3, -4],
      score: 0.5,
    };
    const t = read(
      applyColumnMapping(row, {
        layout: "full",
        tokenIds: "input_ids",
        lossMask: "action_mask",
        logprobs: "logprobs",
        reward: "score",
      }),
    );
    expect(t?.segments.map((s) => s.kind)).toEqual(["prompt", "model", "tool", "model"]);
    expect(flattenSegments(t?.segments ?? []).tokenIds).toEqual(row.input_ids);
    expect(t?.reward).toBe(0.5);
  });

  it("a wrongly mapped column is named by the reader (read as slime), not silently used", () => {
    const row = { prompt_ids: P, completion_ids: "oops", reward: 1 };
    const result = readRolloutValue(
      applyColumnMapping(row, {
        layout: "split",
        promptTokenIds: "prompt_ids",
        responseTokenIds: "completion_ids",
      }),
      3,
      "slime",
    );
    expect(result.kind === "error" && result.error).toMatchObject({ line: 3, field: "tokens" });
  });
});

describe("mappingProblem", () => {
  it("names a column the table lacks, or one mapped twice", () => {
    const columns = ["a", "b", "r"];
    expect(
      mappingProblem(
        { layout: "split", promptTokenIds: "a", responseTokenIds: "b", reward: "r" },
        columns,
      ),
    ).toBeUndefined();
    expect(mappingProblem({ layout: "full", tokenIds: "x" }, columns)).toBe(
      'the table has no column "x"',
    );
    expect(
      mappingProblem({ layout: "split", promptTokenIds: "a", responseTokenIds: "a" }, columns),
    ).toBe('column "a" is mapped twice');
  });
});

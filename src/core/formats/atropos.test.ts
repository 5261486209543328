import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { readAtropos, writeAtroposGroup } from "./atropos";
import { readRolloutLine } from "./readRolloutLine";

describe("readAtropos sentinel runs (fill / slice / mixed paths)", () => {
  it.each([
    { name: "sentinel-only prompt", lp: [1, 1, -0.5, -0.25], prompt: [null, null] },
    { name: "sentinel-free prompt", lp: [-2, -3, -0.5, -0.25], prompt: [-2, -3] },
    { name: "mixed prompt", lp: [1, -3, -0.5, -0.25], prompt: [null, -3] },
  ])("$name", ({ lp, prompt }) => {
    const result = readAtropos(
      {
        tokens: [[5, 6, 7, 8]],
        masks: [[-100, -100, 7, 8]],
        scores: [1],
        inference_logprobs: [lp],
      },
      { line: 3 },
    );
    const segments = result.ok ? result.trajectories[0]?.segments : undefined;
    expect(segments?.map((s) => [s.kind, s.lossMask, s.logprobs])).toEqual([
      ["prompt", [0, 0], prompt],
      ["model", [1, 1], [-0.5, -0.25]],
    ]);
  });

  it("reads ManagedServer's 1.0 pad on a trained token (no logprob returned) as null", () => {
    const result = readAtropos(
      { tokens: [[5, 6, 7]], masks: [[-100, 6, 7]], scores: [0], inference_logprobs: [[1, -2, 1]] },
      { line: 1 },
    );
    expect(result.ok && result.trajectories[0]?.segments[1]?.logprobs).toEqual([-2, null]);
    expect(result.ok && result.proven?.modelLogprobs).toBe(true);
  });

  it("keeps any other positive logprob on a trained token (the invariant check reports it)", () => {
    const result = readAtropos(
      { tokens: [[5, 6]], masks: [[-100, 6]], scores: [0], inference_logprobs: [[1, 0.5]] },
      { line: 1 },
    );
    expect(result.ok && result.trajectories[0]?.segments[1]?.logprobs).toEqual([0.5]);
    expect(result.ok && result.proven?.modelLogprobs).toBe(false);
  });

  it("reads a row with no trained token as one prompt segment", () => {
    const result = readAtropos(
      { tokens: [[5, 6]], masks: [[-100, -100]], scores: [0] },
      { line: 1 },
    );
    expect(result.ok && result.trajectories[0]?.segments.map((s) => [s.kind, s.logprobs])).toEqual([
      ["prompt", [null, null]],
    ]);
  });
});

describe("readAtropos mask errors (masks checked once, by checkGroup, zod's error first)", () => {
  it.each([
    { masks: [[-100, 1.5]], field: "masks[0][1]", message: "expected int, received number" },
    { masks: [[-100, "6"]], field: "masks[0][1]", message: "expected number, received string" },
    { masks: [[-100, 6.5, 3]], field: "masks[0][1]", message: "expected int, received number" },
    { masks: [[-100, 6, 7]], field: "masks[0]", message: "masks[0] has 3 entries" },
    { masks: [[-100, 6], [1]], field: "masks", message: "masks has 2 entries" },
    { masks: [[-100, 7]], field: "masks[0][1]", message: "is 7: neither -100 nor the token id 6" },
  ])("$masks -> $field", ({ masks, field, message }) => {
    const result = readAtropos({ tokens: [[5, 6]], masks, scores: [0] }, { line: 1 });
    expect(result.ok ? undefined : result.error.field).toBe(field);
    expect(result.ok ? "" : result.error.message).toContain(message);
  });
});

describe("a group written by atropos' ManagedServer (src/test/fixtures/atropos-managed-padded.jsonl)", () => {
  const [line = ""] = fixtureLines("atropos-managed-padded.jsonl");

  it("opens, its missing logprobs (the writer's 1.0 pads on trained tokens) read as null", () => {
    const result = readRolloutLine(line, 1);
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    const kinds = result.trajectories.map((t) =>
      t.segments.map((s) => `${s.kind}:${s.tokenIds.length}`).join(" "),
    );
    expect(kinds).toEqual([
      "prompt:12 model:2 tool:10 model:3",
      "prompt:12 model:2 tool:10 model:3",
    ]);
    expect(result.trajectories[0]?.segments[3]?.logprobs).toEqual([-0.11, -0.02, -0.0003]);
    expect(result.trajectories[1]?.segments[3]?.logprobs).toEqual([-2.3, null, null]);
    expect(result.trajectories[1]?.segments[1]?.logprobs).toEqual([-0.0412, -0.0007]);
  });

  it("writes the pads back as 1.0: read, write, read gives the line as written", () => {
    const result = readRolloutLine(line, 1);
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    const written = writeAtroposGroup(result.trajectories);
    expect(written.inference_logprobs).toEqual(JSON.parse(line).inference_logprobs);
    expect(written.masks).toEqual(JSON.parse(line).masks);
  });
});

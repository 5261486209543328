import { describe, expect, it } from "vitest";
import { readAtropos } from "./atropos";

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

  it("keeps a positive logprob on a trained token (the invariant check reports it)", () => {
    const result = readAtropos(
      { tokens: [[5, 6]], masks: [[-100, 6]], scores: [0], inference_logprobs: [[1, 1]] },
      { line: 1 },
    );
    expect(result.ok && result.trajectories[0]?.segments[1]?.logprobs).toEqual([1]);
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

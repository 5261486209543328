import { describe, expect, it } from "vitest";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";
import { packTrajectories, unpackTrajectories } from "./driftProtocol";

function segment(kind: Segment["kind"], ids: number[], logprobs: (number | null)[]): Segment {
  return {
    kind,
    turn: 0,
    tokenIds: ids,
    lossMask: ids.map(() => (kind === "model" ? 1 : 0)),
    logprobs,
    text: `text of ${kind}`,
  };
}

function trajectory(id: string, segments: Segment[]): Trajectory {
  return {
    id,
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "completed",
    segments,
    metadata: { note: id },
  };
}

describe("packTrajectories / unpackTrajectories", () => {
  const cases: [string, Trajectory[]][] = [
    ["no trajectories", []],
    ["an empty segment list", [trajectory("a", [])]],
    [
      "prompt and model segments with null, negative and -0 logprobs",
      [
        trajectory("b", [
          segment("prompt", [151644, 8948, 198], [null, null, null]),
          segment("model", [40, 0, 151645], [-0.5, -0, -12.25]),
          segment("tool", [], []),
        ]),
        trajectory("c", [segment("model", [7], [null])]),
      ],
    ],
  ];
  it.each(cases)("%s: unpacks to the same trajectories", (_name, input) => {
    const { packed, transfer } = packTrajectories(input);
    expect(transfer.length).toBe(5);
    expect(unpackTrajectories(packed)).toEqual(input);
    // The shells carry no per-token arrays: those travel in the typed arrays only.
    for (const t of packed.shells) for (const s of t.segments) expect(s.tokenIds).toEqual([]);
  });
  it("keeps -0 apart from 0 in logprobs", () => {
    const input = [trajectory("d", [segment("model", [1, 2], [-0, 0])])];
    const out = unpackTrajectories(packTrajectories(input).packed);
    expect(Object.is(out[0]?.segments[0]?.logprobs[0], -0)).toBe(true);
    expect(Object.is(out[0]?.segments[0]?.logprobs[1], 0)).toBe(true);
  });
});

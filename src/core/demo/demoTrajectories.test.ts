import { describe, expect, it } from "vitest";
import { cutoffReason, flattenTrajectory } from "../layout/flatTrajectory";
import { buildDemo, demoNames } from "./demoTrajectories";

describe("demo trajectories", () => {
  it.each(demoNames)("%s has one piece per token and consistent segments", (name) => {
    const demo = buildDemo(name);
    if (!demo) throw new Error(`no demo ${name}`);
    const flat = flattenTrajectory(demo.trajectory);
    expect(demo.pieces).toHaveLength(flat.tokenCount);
    expect(demo.trajectory.segments[0]?.kind).toBe("prompt");
    for (const segment of demo.trajectory.segments) {
      expect(new Set(segment.lossMask)).toEqual(
        new Set(segment.tokenIds.length ? [segment.kind === "model" ? 1 : 0] : []),
      );
    }
  });

  it("calculator pieces spell each segment's text and carry one tool call with its result", () => {
    const demo = buildDemo("calculator");
    if (!demo) throw new Error("no calculator demo");
    let at = 0;
    for (const segment of demo.trajectory.segments) {
      const n = segment.tokenIds.length;
      expect(demo.pieces.slice(at, at + n).join("")).toBe(segment.text);
      at += n;
    }
    const calls = demo.trajectory.segments.flatMap((s) => s.toolCalls ?? []);
    expect(calls.map((c) => [c.name, c.result])).toEqual([["calculator", "128"]]);
    const [start, end] = calls[0]?.span ?? [0, 0];
    expect(demo.trajectory.segments[1]?.text?.slice(start, end)).toMatch(
      /^<tool_call>[\s\S]*<\/tool_call>$/,
    );
  });

  it("cutoff and huge end on a cut model segment; unknown names give undefined", () => {
    for (const name of ["cutoff", "huge"]) {
      const last = buildDemo(name)?.trajectory.segments.at(-1);
      expect(last?.kind).toBe("model");
      expect(last && cutoffReason(last)).toBeTruthy();
    }
    expect(
      flattenTrajectory(
        buildDemo("huge")?.trajectory ?? {
          id: "",
          source: { kind: "live" },
          format: "",
          status: "completed",
          segments: [],
          metadata: {},
        },
      ).tokenCount,
    ).toBe(131_072);
    expect(buildDemo("nope")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { flattenSegments } from "../trajectory/flatten";
import type { Trajectory } from "../trajectory/types";
import { type AtifLinks, linksOf } from "./atif";
import { trajectoryToAtif, writeAtifDocument } from "./atifWrite";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";
import { readRolloutLine } from "./readRolloutLine";
import { writeRolloutLens } from "./rolloutLens";

const lines = fixtureLines("reference-atif.jsonl");

function read(line: string, lineNo = 1): Trajectory[] {
  const result = readRolloutLine(line, lineNo);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  expect(result.format).toBe("atif");
  return result.trajectories;
}

function parsed(line: string): unknown {
  const result = parseJsonLine(line);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

const STRANDS_IDS = [
  151644, 872, 198, 16, 20, 9, 22, 30, 151645, 198, 151644, 77091, 198, 151657, 5513, 151658,
  151645, 198, 151644, 872, 198, 16, 15, 20, 151645, 198, 151644, 77091, 198, 16, 15, 20, 151645,
];

describe("ATIF reader", () => {
  it("v1.4: prompt ids, completions and the tokens a later prompt adds become segments", () => {
    const [t, ...rest] = read(lines[0] ?? "");
    expect(rest).toEqual([]);
    if (!t) throw new Error("no trajectory");
    expect(t.id).toBe("ep42");
    expect(t.model).toBe("Qwen/Qwen3-4B-Instruct-2507");
    expect(t.segments.map((s) => [s.kind, s.turn, s.tokenIds.length])).toEqual([
      ["prompt", 0, 13],
      ["model", 1, 4],
      ["tool", 1, 12],
      ["model", 2, 4],
    ]);
    const flat = flattenSegments(t.segments);
    expect(flat.tokenIds).toEqual(STRANDS_IDS);
    expect(flat.lossMask.join("")).toBe(`${"0".repeat(13)}1111${"0".repeat(12)}1111`);
    expect(t.segments[1]?.logprobs).toEqual([-0.31, -0.02, -0.004, -0.0006]);
    expect(t.segments[2]?.logprobs).toEqual(new Array(12).fill(null));
    expect(t.segments[1]?.toolCalls).toEqual([
      {
        id: "call_0000",
        name: "calculator",
        arguments: { expression: "15*7" },
        raw: '{"expression":"15*7"}',
        span: [0, 0],
        result: "105",
      },
    ]);
    expect(t.messages?.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("v1.3: completion ids only give model segments after an empty prompt", () => {
    const [t] = read(lines[1] ?? "");
    expect(t?.segments.map((s) => [s.kind, s.tokenIds])).toEqual([
      ["prompt", []],
      ["model", [19, 151645]],
    ]);
  });

  it("v1.7: a compacted context starts a new part; subagents are rows, all linked", () => {
    const rows = read(lines[2] ?? "", 3);
    expect(rows.map((t) => [t.id, t.source.row, t.segments.length])).toEqual([
      ["main", 0, 4],
      ["main#2", 1, 2],
      ["main/search-1", 2, 2],
    ]);
    const [main, part2, sub] = rows.map((t) => linksOf(t) as AtifLinks);
    expect(main?.nextPart).toBe("main#2");
    expect(main?.children).toEqual(["main/search-1"]);
    expect(main?.continuedTrajectoryRef).toBe("trajectory.cont-1.json");
    expect(main?.subagentRefs).toEqual([
      { step: 1, trajectoryId: "search-1", sessionId: undefined, trajectoryPath: undefined },
      {
        step: 1,
        sessionId: "run-7-ext",
        trajectoryPath: "s3://runs/ext.json",
        trajectoryId: undefined,
      },
    ]);
    expect(part2?.previousPart).toBe("main");
    expect(sub?.parent).toBe("main");
    expect(rows[1]?.segments[0]?.tokenIds).toEqual([151644, 872, 198, 100, 101]);
    expect(rows[0]?.messages?.[0]?.content).toBe("What is 15*7?");
  });

  it("v1.2 (no ids): one text-only row with its messages", () => {
    const [t] = read(lines[3] ?? "");
    expect(t?.segments).toEqual([]);
    expect(t?.messages).toEqual([
      { role: "user", content: "2+2?" },
      { role: "assistant", content: "4" },
    ]);
  });

  it.each(lines.map((line, i) => ({ i, line })))(
    "line $i round-trips: read -> write -> read equal, and the document written back as read",
    ({ line, i }) => {
      const rows = read(line, i + 1);
      const doc = writeAtifDocument(rows);
      expect(doc).toEqual(parsed(line));
      expect(read(stringifyJsonLine(doc), i + 1)).toEqual(rows);
    },
  );

  it("round-trips through rollout-lens/v1 too (the metadata carries the document)", () => {
    const rows = read(lines[2] ?? "", 3);
    const viaRl = rows.map((t) => {
      const result = readRolloutLine(stringifyJsonLine(writeRolloutLens(t)), 3);
      if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
      return result.trajectories[0] as Trajectory;
    });
    expect(writeAtifDocument(viaRl)).toEqual(parsed(lines[2] ?? ""));
  });

  it("names the step and field of a bad document", () => {
    const doc = parsed(lines[0] ?? "") as { steps: { metrics?: { logprobs?: number[] } }[] };
    const bad = structuredClone(doc);
    bad.steps[1]?.metrics?.logprobs?.pop();
    const result = readRolloutLine(JSON.stringify(bad), 7);
    expect(result.kind === "error" && result.error).toEqual({
      line: 7,
      field: "steps[1].metrics.logprobs",
      message: "has 3 entries but completion_token_ids has 4",
    });
    const badId = structuredClone(doc) as {
      steps: { metrics?: { completion_token_ids?: number[] } }[];
    };
    const ids = badId.steps[2]?.metrics?.completion_token_ids;
    if (ids) ids[1] = -3;
    const second = readRolloutLine(JSON.stringify(badId), 8);
    expect(second.kind === "error" && second.error.field).toBe(
      "steps[2].metrics.completion_token_ids",
    );
    const sub = structuredClone(parsed(lines[2] ?? "")) as {
      subagent_trajectories: { steps: unknown }[];
    };
    if (sub.subagent_trajectories[0]) sub.subagent_trajectories[0].steps = "none";
    const third = readRolloutLine(JSON.stringify(sub), 9);
    expect(third.kind === "error" && third.error.field).toBe("subagent_trajectories[0].steps");
  });
});

describe("export to ATIF", () => {
  function reimport(t: Trajectory): Trajectory {
    const [back, ...rest] = read(stringifyJsonLine(trajectoryToAtif(t)));
    expect(rest).toEqual([]);
    if (!back) throw new Error("nothing re-imported");
    return back;
  }

  it.each([
    ["strands", "reference-strands.jsonl"],
    ["slime", "reference-slime.jsonl"],
    ["rollout-lens/v1", "reference-rollout-lens.jsonl"],
    ["nemo-rl", "reference-nemo-rl.jsonl"],
  ])("a %s trajectory re-imports to the same ids, masks and model logprobs", (_name, file) => {
    for (const [i, line] of fixtureLines(file).entries()) {
      const result = readRolloutLine(line, i + 1);
      if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
      for (const t of result.trajectories) {
        const back = reimport(t);
        const a = flattenSegments(t.segments);
        const b = flattenSegments(back.segments);
        expect(b.tokenIds).toEqual(a.tokenIds);
        expect(b.lossMask).toEqual(a.lossMask);
        expect(b.logprobs).toEqual(a.logprobs.map((v, k) => (a.lossMask[k] === 1 ? v : null)));
        expect(back.segments.map((s) => s.kind)).toEqual(t.segments.map((s) => s.kind));
        expect(back.reward).toEqual(t.reward ?? undefined);
        expect(back.id).toBe(t.id);
      }
    }
  });

  it("writes tool calls, their results and the trailing tool tokens", () => {
    const result = readRolloutLine(fixtureLines("reference-rollout-lens.jsonl")[0] ?? "", 1);
    const t = result.kind === "trajectories" ? result.trajectories[0] : undefined;
    const doc = trajectoryToAtif(t as Trajectory) as { steps: Record<string, unknown>[] };
    const agent = doc.steps.find((s) => s.tool_calls !== undefined);
    expect(agent?.tool_calls).toBeDefined();
    const tail: Trajectory = {
      ...(t as Trajectory),
      segments: [
        ...(t as Trajectory).segments,
        { kind: "tool", turn: 2, tokenIds: [1, 2], lossMask: [0, 0], logprobs: [null, null] },
      ],
    };
    expect(flattenSegments(reimport(tail).segments).tokenIds.slice(-2)).toEqual([1, 2]);
  });

  it("an ATIF-read trajectory exports as its own document", () => {
    const [t] = read(lines[0] ?? "");
    expect(trajectoryToAtif(t as Trajectory)).toEqual(parsed(lines[0] ?? ""));
  });
});

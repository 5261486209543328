import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import {
  modelSegment,
  promptSegment,
  toolSegment,
  trajectory,
} from "../../test/trajectoryBuilders";
import { readRolloutLine } from "../formats/readRolloutLine";
import type { Trajectory } from "../trajectory/types";
import { advantages, zeroVariance } from "./forensics";
import { forestOfTrajectories, forestsOfList } from "./forestOf";

function fileTrajectories(name: string): Trajectory[] {
  return fixtureLines(name).flatMap((text, k) => {
    const read = readRolloutLine(text, k + 1);
    if (read.kind !== "trajectories") throw new Error(`line ${k + 1} of ${name} did not read`);
    return read.trajectories;
  });
}

describe("the real atropos file (Llama-3, rubik's cube environment)", () => {
  const forests = forestsOfList(fileTrajectories("atropos-rubiks-groups.jsonl"));

  it("finds one group per line, four members each", () => {
    expect(forests.map((f) => [f.key, f.kind, f.line, f.size])).toEqual([
      ["L1", "group", 1, 4],
      ["L2", "group", 2, 4],
      ["L3", "group", 3, 4],
      ["L4", "group", 4, 4],
    ]);
  });

  it("calls the two groups of four token-identical samples zero-variance: identical completions", () => {
    const identical = forests.filter((f) => f.zeroVarianceCause === "identical");
    expect(identical.map((f) => f.line)).toEqual([3, 4]); // lines 3 and 6 of the original file
    for (const f of identical) {
      expect(f.duplicateSets).toEqual([[0, 1, 2, 3]]);
      expect(f.branchPoints).toEqual([]);
      expect(f.causes[0]).toMatch(/^zero variance: identical completions/);
      // Four copies of one completion: every trained token is trained four times.
      expect(f.multiplicity.max).toBe(4);
      expect(f.multiplicity.repeated).toBe(f.multiplicity.trained);
    }
  });

  it("finds the partial duplicate set of three in a group that still has variance", () => {
    const [, second] = forests;
    expect(second?.zeroVariance).toBe(false);
    expect(second?.duplicateSets).toEqual([[1, 2, 3]]);
    expect(second?.branchPoints.map((p) => [p.index, p.children.map((c) => c.members)])).toEqual([
      [2097, [[0], [1, 2, 3]]],
    ]);
  });

  it("places the branch points of siblings that look alike after ~1,350 shared tokens", () => {
    const [first] = forests;
    expect(first?.duplicateSets).toEqual([]);
    expect(first?.branchPoints.map((p) => [p.index, p.children.map((c) => c.members)])).toEqual([
      [1346, [[0], [1, 2, 3]]],
      [1347, [[1, 3], [2]]],
      [1353, [[1], [3]]],
    ]);
    const [root] = first?.branchPoints ?? [];
    expect(root?.children.every((c) => c.token !== undefined)).toBe(true);
  });

  it("computes GRPO advantages, labelled as computed, since the file records none", () => {
    const [first] = forests;
    expect(first?.advantages.recorded).toBeNull();
    const computed = first?.advantages.grpo ?? [];
    expect(computed.reduce((a, b) => (a ?? 0) + (b ?? 0), 0)).toBeCloseTo(0, 9);
    expect(first?.advantages.centered[1]).toBeCloseTo(0.5955555555555556 - 0.629351851851852, 9);
  });
});

function recordedMember(
  id: string,
  ids: readonly number[][],
  path: readonly { id: string; parent: string | null }[],
  reward: number,
): Trajectory {
  let at = 0;
  const recorded = path.map((node, k) => {
    const start = at;
    at += ids[k]?.length ?? 0;
    return { ...node, start, end: at };
  });
  const [prompt = [], ...turns] = ids;
  const segments = [
    promptSegment(prompt),
    ...turns.map((t, k) => (k % 2 === 0 ? modelSegment(t, k + 1) : toolSegment(t, k))),
  ];
  return trajectory(segments, {
    id,
    reward,
    metadata: { recorded_tree: { tree: "trace-7", path: recorded } },
  });
}

describe("a recorded tree (verifiers-style node path per branch)", () => {
  const root = { id: "n0", parent: null };
  const shared = { id: "n1", parent: "n0" };
  const a = recordedMember(
    "a",
    [[1, 2], [10, 11, 12], [20, 21], [30]],
    [root, shared, { id: "t1", parent: "n1" }, { id: "m1", parent: "t1" }],
    1,
  );
  const b = recordedMember(
    "b",
    [[1, 2], [10, 11, 12], [22], [31, 32]],
    [root, shared, { id: "t2", parent: "n1" }, { id: "m2", parent: "t2" }],
    0,
  );

  it("uses the recorded nodes and shows multiplicity exactly on the shared trained tokens", () => {
    const forest = forestOfTrajectories({ key: "trace-7", kind: "tree" }, [a, b]);
    expect(forest.isRecorded).toBe(true);
    expect(forest.treeProblems).toEqual([]);
    expect(forest.multiplicity.tokens).toBe(3); // n1: the model turn both branches train
    expect(forest.multiplicity.max).toBe(2);
    const n1 = forest.root.children[0];
    expect(n1?.recordedId).toBe("n1");
    expect(forest.multiplicity.byNode.get(n1?.id ?? -1)).toBe(3);
    expect(forest.branchPoints.map((p) => p.index)).toEqual([5]);
    expect(forest.causes.some((c) => c.startsWith("multiplicity: 3 trained tokens"))).toBe(true);
    expect(forest.rewardSplit).toEqual({ siblings: 2, sum: 1, isEven: false });
  });

  it("reports a recorded tree whose shared node holds different ids as a finding", () => {
    const c = recordedMember(
      "c",
      [[1, 2], [10, 99, 12], [22], [31]],
      [root, shared, { id: "t3", parent: "n1" }, { id: "m3", parent: "t3" }],
      0,
    );
    const forest = forestOfTrajectories({ key: "trace-7", kind: "tree" }, [a, c]);
    expect(forest.treeProblems).toEqual([
      "node n1: members 0 and 1 share it but their ids differ at token 3",
    ]);
    expect(forest.causes).toContain(
      "recorded tree disagrees with the ids: node n1: members 0 and 1 share it but their ids differ at token 3",
    );
  });

  it("reports a path that is not a root-first chain covering the ids", () => {
    const bad = trajectory([promptSegment([1, 2, 3])], {
      metadata: {
        recorded_tree: { tree: "x", path: [{ id: "r", parent: "zz", start: 0, end: 2 }] },
      },
    });
    const forest = forestOfTrajectories({ key: "x", kind: "tree" }, [bad]);
    expect(forest.treeProblems).toEqual([
      "member 0 path[0] (node r): parent is zz, the path says null",
      "member 0: its path ends at 2 but it has 3 ids",
    ]);
  });
});

describe("our own branches (parent_id / fork_index)", () => {
  it("shows the fork point as the branch point", () => {
    const parent = trajectory([promptSegment([1, 2, 3]), modelSegment([4, 5, 6, 7], 1)], {
      id: "ep_p",
    });
    const branch = (id: string, tail: number[]) =>
      trajectory([promptSegment([1, 2, 3]), modelSegment([4, 5, ...tail], 1)], {
        id,
        lineage: { parentId: "ep_p", forkIndex: 5 },
      });
    const [forest] = forestsOfList([parent, branch("ep_b1", [8, 9]), branch("ep_b2", [6, 1])]);
    expect(forest?.kind).toBe("branches");
    expect(forest?.key).toBe("ep_p");
    expect(forest?.branchPoints.map((p) => [p.index, p.children.map((c) => c.members)])).toEqual([
      [5, [[0, 2], [1]]],
      [6, [[0], [2]]],
    ]);
    // The parent's tokens 3..4 are in every branch's trained span: the fork copied them.
    expect(forest?.multiplicity.tokens).toBe(3);
  });
});

describe("zero variance, with its cause", () => {
  const m = (reward: number | undefined, status: Trajectory["status"] = "completed") => ({
    reward,
    status,
  });
  it.each([
    ["identical", [m(1), m(1)], true],
    ["all-aborted", [m(0, "aborted"), m(0, "aborted")], false],
    ["all-truncated", [m(undefined, "truncated"), m(undefined, "truncated")], false],
    ["no-reward", [m(undefined), m(undefined)], false],
    ["all-failed", [m(0), m(0)], false],
    ["equal-reward", [m(1), m(1), m(undefined)], false],
    [null, [m(1), m(0)], false],
    [null, [m(1)], true],
  ] as const)("%s", (cause, members, isAllIdentical) => {
    expect(zeroVariance(members, isAllIdentical)).toBe(cause);
  });
});

describe("advantages", () => {
  it("computes GRPO and r − mean and flags recorded ones that match neither", () => {
    const result = advantages([1, 0, 1, 0], [1, -1, 0.5, -0.5]);
    expect(result.grpo).toEqual([1, -1, 1, -1]);
    expect(result.centered).toEqual([0.5, -0.5, 0.5, -0.5]);
    expect(result.disagreeing).toEqual([]);
    expect(advantages([1, 0], [3, -1]).disagreeing).toEqual([0]);
    expect(advantages([1, undefined], [undefined, undefined]).recorded).toBeNull();
  });
});

describe("a group of text-only members (no token ids: ART, verifiers text, chat tables)", () => {
  const textOnly = (id: string, reward: number): Trajectory => ({
    ...trajectory([], { id }),
    reward,
    messages: [{ role: "assistant", content: id }],
  });

  it("claims no duplicates or identical completions, and says its token checks did not run", () => {
    const f = forestOfTrajectories({ key: "g", kind: "group" }, [
      textOnly("a", 1),
      textOnly("b", 1),
      textOnly("c", 1),
    ]);
    expect(f.withIds).toBe(0);
    expect(f.duplicateSets).toEqual([]);
    expect(f.zeroVarianceCause).toBe("equal-reward");
    expect(f.causes).toEqual([
      "zero variance: equal rewards (the completions were not compared: no token ids)",
      "not checked: duplicates, branch points and multiplicity need token ids (3 of 3 members are text only)",
    ]);
  });

  it("a group of one text-only member has nothing to check", () => {
    const f = forestOfTrajectories({ key: "g", kind: "group" }, [textOnly("a", 1)]);
    expect(f.causes.some((c) => c.startsWith("not checked"))).toBe(false);
  });
});

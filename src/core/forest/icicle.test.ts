import { describe, expect, it } from "vitest";
import { promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { forestOfTrajectories } from "./forestOf";
import { icicleLayout } from "./icicle";

const member = (id: string, ids: number[], reward: number) =>
  trajectory([promptSegment(ids)], { id, reward });

describe("icicleLayout", () => {
  it("gives each distinct member a lane, a duplicate set one, and nodes the lanes of their leaves", () => {
    const forest = forestOfTrajectories({ key: "g", kind: "group" }, [
      member("a", [1, 2, 3, 4], 1),
      member("b", [1, 2, 5], 0),
      member("c", [1, 2, 3, 4], 0),
      member("d", [1, 2, 3, 9], 0.5),
    ]);
    const layout = icicleLayout(forest);
    expect(layout.lanes).toBe(3);
    expect(layout.tokens).toBe(4);
    const byMembers = new Map(layout.rects.map((r) => [r.members.join(","), r]));
    expect(byMembers.get("0,1,2,3")).toMatchObject({ start: 0, end: 2, lane0: 0, lane1: 3 });
    expect(byMembers.get("0,2,3")).toMatchObject({ start: 2, end: 3, lane0: 0, lane1: 2 });
    expect(byMembers.get("0,2")).toMatchObject({
      start: 3,
      end: 4,
      lane0: 0,
      lane1: 1,
      reward: 0.5,
    });
    expect(byMembers.get("1")).toMatchObject({
      start: 2,
      end: 3,
      lane0: 2,
      lane1: 3,
      isLeaf: true,
    });
    expect(layout.branches.map((b) => b.index)).toEqual([2, 3]);
  });
});

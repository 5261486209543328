import type { GroupForest } from "./groupForest";
import type { ForestNode } from "./prefixTree";

/** One node of the icicle: x in tokens, y in lanes (one lane per leaf; duplicates share one). */
export interface IcicleRect {
  readonly node: number;
  /** [start, end) token positions. */
  readonly start: number;
  readonly end: number;
  /** [lane0, lane1) lanes, top to bottom. */
  readonly lane0: number;
  readonly lane1: number;
  readonly members: readonly number[];
  readonly isLeaf: boolean;
  /** Mean reward of the members that have one. */
  readonly reward: number | undefined;
  /** Positions of this node two or more members are trained on (multiplicity). */
  readonly multiplied: number;
}

/** A branch point placed on the icicle: its token index and the lanes of its node. */
export interface IcicleBranch {
  readonly node: number;
  readonly index: number;
  readonly lane0: number;
  readonly lane1: number;
}

/** The icicle drawing of a forest: rects (children before parents) and branch marks (by index). */
export interface IcicleLayout {
  readonly rects: readonly IcicleRect[];
  readonly branches: readonly IcicleBranch[];
  readonly lanes: number;
  /** The longest member's length: the x extent. */
  readonly tokens: number;
}

function meanReward(forest: GroupForest, members: readonly number[]): number | undefined {
  let sum = 0;
  let n = 0;
  for (const m of members) {
    const r = forest.members[m]?.reward;
    if (r !== undefined) {
      sum += r;
      n += 1;
    }
  }
  return n === 0 ? undefined : sum / n;
}

/** Lays the forest out as an icicle: each leaf one lane, each node over its leaves' lanes. Linear in nodes. */
export function icicleLayout(forest: GroupForest): IcicleLayout {
  const rects: IcicleRect[] = [];
  const branches: IcicleBranch[] = [];
  let lanes = 0;
  // Post-order without recursion: a node's lanes are known once its children are placed.
  const stack: { node: ForestNode; lane0: number; isExpanded: boolean }[] = [
    { node: forest.root, lane0: 0, isExpanded: false },
  ];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { node } = top;
    if (!top.isExpanded && node.children.length > 0) {
      stack.push({ node, lane0: lanes, isExpanded: true });
      for (let k = node.children.length - 1; k >= 0; k--) {
        const child = node.children[k];
        if (child) stack.push({ node: child, lane0: 0, isExpanded: false });
      }
      continue;
    }
    const isLeaf = node.children.length === 0;
    const lane0 = isLeaf ? lanes : top.lane0;
    if (isLeaf) lanes += 1;
    const rect = {
      ...{ node: node.id, start: node.start, end: node.end, lane0, lane1: lanes },
      ...{ members: node.members, isLeaf, reward: meanReward(forest, node.members) },
      multiplied: forest.multiplicity.byNode.get(node.id) ?? 0,
    };
    rects.push(rect);
    if (node.children.length >= 2) {
      branches.push({ node: node.id, index: node.end, lane0, lane1: lanes });
    }
  }
  const tokens = Math.max(1, ...forest.members.map((m) => m.tokens));
  branches.sort((a, b) => a.index - b.index || a.lane0 - b.lane0);
  return { rects, branches, lanes, tokens };
}

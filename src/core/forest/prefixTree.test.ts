import { describe, expect, it } from "vitest";
import { duplicateSets, multiplicity, nearDuplicateSets } from "./forensics";
import { branchPoints, buildPrefixTree, type ForestNode, nodesOf } from "./prefixTree";

function shape(node: ForestNode): unknown {
  return {
    span: [node.start, node.end],
    members: node.members,
    ...(node.children.length > 0 ? { children: node.children.map(shape) } : {}),
  };
}

describe("buildPrefixTree", () => {
  it("shares the common prefix and branches where members first differ", () => {
    const root = buildPrefixTree([
      [1, 2, 3, 4],
      [1, 2, 9, 9, 9],
      [1, 2, 3, 5],
    ]);
    expect(shape(root)).toEqual({
      span: [0, 2],
      members: [0, 1, 2],
      children: [
        {
          span: [2, 3],
          members: [0, 2],
          children: [
            { span: [3, 4], members: [0] },
            { span: [3, 4], members: [2] },
          ],
        },
        { span: [2, 5], members: [1] },
      ],
    });
  });

  it("ends token-identical members in one leaf and gives a member ending early its own child", () => {
    const root = buildPrefixTree([
      [7, 8],
      [7, 8, 9],
      [7, 8],
    ]);
    expect(shape(root)).toEqual({
      span: [0, 2],
      members: [0, 1, 2],
      children: [
        { span: [2, 2], members: [0, 2] },
        { span: [2, 3], members: [1] },
      ],
    });
    expect(duplicateSets(root)).toEqual([[0, 2]]);
    const [point] = branchPoints(root, [
      [7, 8],
      [7, 8, 9],
      [7, 8],
    ]);
    expect(point?.index).toBe(2);
    expect(point?.children.map((c) => c.token)).toEqual([undefined, 9]);
  });

  it("puts members that differ at token 0 under an empty root", () => {
    const root = buildPrefixTree([[1], [2]]);
    expect(shape(root)).toEqual({
      span: [0, 0],
      members: [0, 1],
      children: [
        { span: [0, 1], members: [0] },
        { span: [0, 1], members: [1] },
      ],
    });
  });

  it("records each child's first token with its logprob and top-k at a branch point", () => {
    const ids = [
      [5, 6, 7],
      [5, 6, 8],
    ];
    const root = buildPrefixTree(ids);
    const points = branchPoints(root, ids, {
      logprobAt: (m, i) => -(m + 1) * i,
      topKAt: (m, i) => [{ tokenId: 100 + m, logprob: -i }],
    });
    expect(points).toEqual([
      {
        node: root.id,
        index: 2,
        children: [
          { members: [0], token: 7, logprob: -2, topK: [{ tokenId: 100, logprob: -2 }] },
          { members: [1], token: 8, logprob: -4, topK: [{ tokenId: 101, logprob: -2 }] },
        ],
      },
    ]);
  });

  it("builds 64 members of 36k tokens that share most of their ids well under a second", () => {
    const n = 36_000;
    const ids = Array.from({ length: 64 }, (_, m) => {
      const seq = new Int32Array(n);
      for (let i = 0; i < n; i++) seq[i] = i % 1000;
      // Members part in pairs at 30k, then each pair at 35k: deep shared spans, many branches.
      for (let i = 30_000; i < n; i++) seq[i] = (m >> 1) + 2000;
      for (let i = 35_000; i < n; i++) seq[i] = m + 5000;
      return seq;
    });
    const started = performance.now();
    const root = buildPrefixTree(ids);
    const elapsed = performance.now() - started;
    const mult = multiplicity(
      root,
      ids.map(() => new Uint8Array(n).fill(1)),
    );
    expect(root.end).toBe(30_000);
    expect(root.children).toHaveLength(32);
    expect(nodesOf(root)).toHaveLength(1 + 32 + 64);
    expect(mult.max).toBe(64);
    expect(mult.tokens).toBe(30_000 + 32 * 5000);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe("duplicates and near-duplicates", () => {
  it("finds members identical after their first k tokens, apart from token-identical sets", () => {
    const ids = [
      [1, 2, 3, 4, 5],
      [9, 9, 3, 4, 5],
      [1, 2, 3, 4, 5],
      [8, 2, 3, 4, 6],
    ];
    const exact = duplicateSets(buildPrefixTree(ids));
    expect(exact).toEqual([[0, 2]]);
    expect(nearDuplicateSets(ids, 2, exact)).toEqual([[0, 1, 2]]);
    expect(nearDuplicateSets(ids, 4, exact)).toEqual([[0, 1, 2]]);
    expect(nearDuplicateSets(ids, 5, exact)).toEqual([]);
  });
});

describe("multiplicity", () => {
  it("counts only positions two or more members of a shared node are trained on", () => {
    const ids = [
      [1, 2, 3, 4, 5],
      [1, 2, 3, 9, 9],
    ];
    const masks = [
      [0, 1, 1, 1, 1],
      [0, 0, 1, 1, 1],
    ];
    const root = buildPrefixTree(ids);
    const mult = multiplicity(root, masks);
    expect(mult.tokens).toBe(1); // token 2: trained by both; token 1 by member 0 only
    expect(mult.max).toBe(2);
    expect(mult.repeated).toBe(2);
    expect(mult.trained).toBe(7);
    expect([...mult.byNode]).toEqual([[root.id, 1]]);
  });
});

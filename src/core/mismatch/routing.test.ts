import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { compareRouting, routingArraysOf, routingView } from "./routing";

const rollout = [
  [
    [1, 2],
    [3, 4],
  ],
  [
    [1, 2],
    [3, 4],
  ],
  [
    [1, 2],
    [3, 4],
  ],
];
const trainer = [
  [
    [1, 2],
    [3, 4],
  ],
  [
    [1, 2],
    [4, 5], // layer 1 differs
  ],
  [
    [2, 1], // the same set, in another order
    [4, 3],
  ],
];

function routed(metadata: Record<string, unknown>) {
  return trajectory([promptSegment([1, 2]), modelSegment([3, 4], 1)], { metadata });
}

describe("MoE routing agreement", () => {
  it("compares token × layer, the same experts in any order agreeing, and splits |δ| by it", () => {
    const t = routed({ rollout_routed_experts: rollout, train_routed_experts: trainer });
    const { arrays, problems } = routingArraysOf(t);
    expect(problems).toEqual([]);
    expect(arrays.map((a) => [a.name, a.layers, a.topK, a.tokens])).toEqual([
      ["rollout_routed_experts", 2, 2, 3],
      ["train_routed_experts", 2, 2, 3],
    ]);
    const [a, b] = arrays;
    if (!a || !b) throw new Error("two arrays expected");
    // δ of tokens 1..3; token 3 has no routing row (T − 1 rows)
    const c = compareRouting(a, b, [Number.NaN, 0.2, -0.1, 0.4]);
    expect(c.tokens).toBe(3);
    expect(c.cells).toBe(6);
    expect(c.agreeing).toBe(5);
    expect(c.perLayer).toEqual([1, 2 / 3]);
    expect([...c.perToken]).toEqual([1, 0.5, 1, Number.NaN]);
    expect(c.allAgree).toEqual({ tokens: 1, meanAbsDelta: 0.1 });
    expect(c.someDiffer).toEqual({ tokens: 1, meanAbsDelta: 0.2 });
  });

  it("one array alone is shown with what is missing; a per-call array is named, not compared", () => {
    const one = routingView(routed({ rollout_routed_experts: rollout, routed_experts: [] }), []);
    expect(one.problems).toEqual([]);
    expect(one.kind).toBe("one");
    if (one.kind === "one") expect(one.missing).toMatch(/agreement needs a second one/);
    const perCall = routingView(routed({ routed_experts: [[[1, 2]], [[3, 4]]] }), []);
    expect(perCall.kind).toBe("none");
    expect(perCall.problems[0]).toMatch(
      /routed_experts has 2 entries for 4 tokens: not one per token/,
    );
  });
});

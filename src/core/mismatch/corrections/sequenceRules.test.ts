import { describe, expect, it } from "vitest";
import { rowOfDeltas } from "../../../test/replayRowBuilders";
import { modelSegment, promptSegment, trajectory } from "../../../test/trajectoryBuilders";
import { withLane } from "../../trajectory/lanes";
import { m2poCut } from "./m2po";
import { choose } from "./registry";
import { explainToken, replay } from "./replay";
import { replayCollector } from "./replayRows";
import { REPLAY, type ReplayRow } from "./types";

const { kept, clipped, masked, unchecked } = REPLAY;

function run(name: string, rows: readonly ReplayRow[], given = {}) {
  const choice = choose(name, given);
  if (typeof choice === "string") throw new Error(choice);
  return replay(rows, choice);
}

const verdicts = (r: ReturnType<typeof run>, i = 0) => [...(r.outcomes[i]?.verdict ?? [])];

describe("outlier-token sequence mask (verl veto 1e-4)", () => {
  it("drops the whole row when one token has r < 1e-4, keeps a row whose lowest r is 2e-4", () => {
    const bad = rowOfDeltas([0, Math.log(5e-5), Math.log(2)], undefined, 0);
    const fine = rowOfDeltas([0, Math.log(2e-4)], undefined, 1);
    const r = run("outlier-seq", [bad, fine]);
    expect(verdicts(r, 0)).toEqual([masked, masked, masked]);
    expect(verdicts(r, 1)).toEqual([kept, kept]);
    expect(r.summary.rowsDropped).toEqual([0]);
    expect(r.summary.fractionMasked).toBe(3 / 5);
    expect(explainToken(r, [bad, fine], 0, 0)?.reason).toMatch(/lowest r = 5\.000e-5 \(token #1\)/);
  });
});

describe("TRM (verl PR #4544)", () => {
  it("K1: −mean log r outside [ln 0.999, ln 1.001] = [−0.0010005, 0.0009995] masks", () => {
    const inside = rowOfDeltas([0.0005, 0.0005]); // −mean = −0.0005
    const outside = rowOfDeltas([0.004, 0], undefined, 1); // −mean = −0.002
    const r = run("trm-k1", [inside, outside]);
    expect(verdicts(r, 0)).toEqual([kept, kept]);
    expect(verdicts(r, 1)).toEqual([masked, masked]);
    expect(r.outcomes[1]?.stat).toBeCloseTo(-0.002, 15);
  });
  it("the token veto masks a row whose average passes: ½·2.5² = 3.125 > 2", () => {
    const spike = rowOfDeltas([2.5, -2.5]);
    const r = run("trm-k1", [spike]);
    expect(verdicts(r)).toEqual([masked, masked]);
    const why = explainToken(r, [spike], 0, 1)?.reason ?? "";
    expect(why).toContain("the token veto fires");
    expect(why).not.toContain("the average fails");
  });
  it("K3: mean(r − 1 − log r) of ±0.1 is 0.0050042 ≤ 0.01 (kept); of 0.2, 0.2 is 0.0214028 (masked)", () => {
    const r = run("trm-k3", [rowOfDeltas([0.1, -0.1]), rowOfDeltas([0.2, 0.2], undefined, 1)]);
    expect(r.outcomes[0]?.stat).toBeCloseTo(0.005004168, 8);
    expect(verdicts(r, 0)).toEqual([kept, kept]);
    expect(r.outcomes[1]?.stat).toBeCloseTo(0.021402758, 8);
    expect(verdicts(r, 1)).toEqual([masked, masked]);
  });
});

describe("OPSM (miles, δ = 1e-4)", () => {
  // mean(log π_old − log π_θ) = mean(0.001, 0.003) = 0.002 > 1e-4
  const deltas = [-0.001, -0.003];
  it("masks only when A < 0", () => {
    expect(verdicts(run("opsm", [rowOfDeltas(deltas, -1)]))).toEqual([masked, masked]);
    expect(verdicts(run("opsm", [rowOfDeltas(deltas, 1)]))).toEqual([kept, kept]);
    expect(verdicts(run("opsm", [rowOfDeltas([0.001, 0.003], -1)]))).toEqual([kept, kept]);
  });
  it("without an advantage, the row is unchecked", () => {
    const r = run("opsm", [rowOfDeltas(deltas)]);
    expect(verdicts(r)).toEqual([unchecked, unchecked]);
    expect(r.summary.rowsUnchecked).toEqual([0]);
    expect(r.summary.rowsDropped).toEqual([]);
  });
});

describe("GSPO sequence ratio (ε_low = 3e-4, ε_high = 4e-4)", () => {
  it("s = e^0.0004 > 1.0004: clipped (no gradient) when A > 0, weight s when A < 0", () => {
    const deltas = [0.0002, 0.0004, 0.0006];
    const pos = run("gspo", [rowOfDeltas(deltas, 1)]);
    expect(verdicts(pos)).toEqual([clipped, clipped, clipped]);
    expect(pos.outcomes[0]?.weight[0]).toBe(0);
    const neg = run("gspo", [rowOfDeltas(deltas, -1)]);
    expect(verdicts(neg)).toEqual([kept, kept, kept]);
    expect(neg.outcomes[0]?.weight[0]).toBeCloseTo(Math.exp(0.0004), 15);
  });
  it("s = e^−0.001 < 0.9997: clipped when A < 0", () => {
    expect(verdicts(run("gspo", [rowOfDeltas([-0.001], -1)]))).toEqual([clipped]);
    expect(verdicts(run("gspo", [rowOfDeltas([-0.001], 1)]))).toEqual([kept]);
  });
});

describe("M2PO (AReaL, τ = 0.04)", () => {
  // (log r)² = 0.25, 0.01 | 0.09, 0: sorted 0.25, 0.09, 0.01, 0; suffix means 0.0875, 0.0333…
  const rows = [rowOfDeltas([0.5, 0.1], undefined, 0), rowOfDeltas([-0.3, 0], undefined, 1)];
  it("drops the largest (log r)² until the mean of the rest is under τ, across rows", () => {
    const r = run("m2po", rows);
    expect(verdicts(r, 0)).toEqual([masked, kept]);
    expect(verdicts(r, 1)).toEqual([kept, kept]);
    expect(r.facts.m2Dropped).toBe(1);
    expect(r.facts.m2Kept).toBeCloseTo(0.1 / 3, 15);
    const tighter = run("m2po", rows, { tau: 0.02 });
    expect(verdicts(tighter, 1)).toEqual([masked, kept]);
  });
  it("masks all but one when no suffix mean is under τ", () => {
    expect(m2poCut(Float64Array.from([0.25, 0.09, 0.01, 0]), 0)).toBe(3);
    expect(m2poCut(Float64Array.from([]), 0.04)).toBe(0);
  });
});

describe("the registry and the collector", () => {
  it("names errors, aliases and verl's lo = 1/hi", () => {
    expect(choose("nope")).toMatch(/unknown correction "nope"/);
    expect(choose("icepop", { gamma: 1 })).toMatch(/icepop has no threshold "gamma"/);
    expect(choose("geo")).toEqual({ name: "geo-mask", params: { hi: 2, lo: 0.5 } });
    expect(choose("seq", { hi: 4 })).toEqual({ name: "seq-mask", params: { hi: 4, lo: 0.25 } });
  });
  it("computes GRPO advantages from a group's rewards when none is recorded", () => {
    const member = (id: string, reward: number, lane: number[]) =>
      withLane(
        trajectory([promptSegment([1, 2]), modelSegment([3, 4], 1, { logprobs: [-0.5, -0.5] })], {
          id,
          reward,
          group: "g",
        }),
        "trainer",
        [null, null, ...lane],
      );
    const c = replayCollector(undefined);
    expect(c.add(member("a", 1, [-0.4, -0.6]), 0)).toBeUndefined();
    expect(c.add(member("b", 0, [-0.5, -0.5]), 1)).toBeUndefined();
    const { rows } = c.finish([]);
    // rewards 1, 0: mean 0.5, population std 0.5 → A = +1, −1
    expect(rows.map((r) => [r.advantage, r.advantageSource])).toEqual([
      [1, "group"],
      [-1, "group"],
    ]);
    expect([...(rows[0]?.at ?? [])]).toEqual([2, 3]);
  });
});
